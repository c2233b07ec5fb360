#!/usr/bin/env python3
"""Runs one gradlint lint case and checks every expectation written in it.

A lint case is a C++ file under fixtures/lint/<check>/ with its expectations
beside the code, in clang-tidy's style:

    auto a = cat(x, y, 3);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: constant axis 3 ... [check]
    // CHECK-MESSAGES: tensor.h:26:29: note: compile-time form declared here
    // CHECK-FIXES: auto a = cat<3>(x, y);

and optional directives:

    // GRADLINT-ARGS: -std=c++20            compiler arguments (default c++17)
    // GRADLINT-CONFIG: {CheckOptions: ...}  passed as --config

Unlike FileCheck's partial matching, the runner is exact:
  * the diagnostics printed must be exactly the CHECK-MESSAGES lines, in
    order (a location is ':LINE:COL' in the case file or 'header.h:LINE:COL');
  * the fixed file must be exactly the input with each line that is followed
    by CHECK-FIXES replaced by that text (indentation kept) and nothing else;
  * the input and the fixed file must compile (clang++ -fsyntax-only);
  * a second run over the fixed file must fix nothing and report only the
    warnings that had no fix (idempotence);
  * --export-fixes + clang-apply-replacements must give the same file as --fix.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

DIAG_RE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<level>warning|error|note): (?P<msg>.*)$")
DIRECTIVE_RE = re.compile(r"^\s*// (CHECK-MESSAGES|CHECK-FIXES|GRADLINT-ARGS|GRADLINT-CONFIG):(.*)$")
LINE_REF_RE = re.compile(r"\[\[@LINE([+-]\d+)?\]\]")


class CaseError(Exception):
    pass


class LintCase:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.check = os.path.basename(os.path.dirname(os.path.abspath(path)))
        with open(path, encoding="utf-8") as f:
            self.source = f.read()
        self.lines = self.source.split("\n")
        self.args = ["-std=c++17"]
        self.config = None
        self.messages = []
        self.expected_fixed = list(self.lines)
        self._parse()

    def _parse(self):
        code_line = None  # 0-based index of the last non-directive line
        for index, text in enumerate(self.lines):
            m = DIRECTIVE_RE.match(text)
            if not m:
                code_line = index
                continue
            kind, value = m.group(1), m.group(2).strip()
            if kind == "GRADLINT-ARGS":
                self.args = value.split()
            elif kind == "GRADLINT-CONFIG":
                self.config = value
            elif kind == "CHECK-MESSAGES":
                self.messages.append(self._resolve_lines(value, index + 1))
            elif kind == "CHECK-FIXES":
                if code_line is None:
                    raise CaseError(f"{self.name}:{index + 1}: CHECK-FIXES before any code")
                indent = re.match(r"\s*", self.lines[code_line]).group(0)
                self.expected_fixed[code_line] = indent + value
        if not self.messages and "CHECK-FIXES" in self.source:
            raise CaseError(f"{self.name}: CHECK-FIXES without CHECK-MESSAGES")

    @staticmethod
    def _resolve_lines(value, directive_line):
        def repl(m):
            return str(directive_line + int(m.group(1) or 0))
        return LINE_REF_RE.sub(repl, value)

    def expected_fixed_source(self):
        return "\n".join(self.expected_fixed)


class GradlintFrontEnd:
    """The gradlint command, as users run it."""

    name = "gradlint"

    def __init__(self, binary):
        self.binary = binary

    def run(self, case, path, include, fix=False, export=None):
        cmd = [self.binary, f"--checks=-*,{case.check}", "--quiet", path]
        if case.config:
            cmd.insert(1, f"--config={case.config}")
        if fix:
            cmd.insert(1, "--fix")
        if export:
            cmd.insert(1, f"--export-fixes={export}")
        cmd += ["--", *case.args, f"-I{include}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0,):
            raise CaseError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return proc.stdout


def diagnostics(output, case_path):
    found = []
    for line in output.splitlines():
        m = DIAG_RE.match(line)
        if not m:
            continue
        file = m.group("file")
        file = "" if os.path.abspath(file) == os.path.abspath(case_path) else os.path.basename(file)
        found.append(f"{file}:{m.group('line')}:{m.group('col')}: {m.group('level')}: {m.group('msg')}")
    return found


def compare(what, expected, actual):
    if expected == actual:
        return
    diff = "\n".join(difflib.unified_diff(expected, actual, "expected", "actual", lineterm=""))
    raise CaseError(f"{what} differ:\n{diff}")


def compile_ok(clang, case, path, include, what):
    proc = subprocess.run([clang, "-fsyntax-only", *case.args, f"-I{include}", path],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CaseError(f"{what} does not compile:\n{proc.stderr}")


def warnings_with_fixes(export_path):
    if not os.path.exists(export_path):
        return 0
    with open(export_path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    return sum(1 for d in doc.get("Diagnostics", [])
               if d.get("Level") == "Warning" and d["DiagnosticMessage"].get("Replacements"))


def run_case(case, front_end, clang, apply_replacements, include):
    with tempfile.TemporaryDirectory(prefix="gradlint-lint-") as tmp:
        def copy_to(sub):
            os.makedirs(os.path.join(tmp, sub))
            dest = os.path.join(tmp, sub, case.name)
            shutil.copyfile(case.path, dest)
            return dest

        compile_ok(clang, case, case.path, include, "the input")

        # 1. Diagnostics, and the fixes exported for clang-apply-replacements.
        exported = copy_to("exported")
        fixes_dir = os.path.join(tmp, "fixes")
        os.makedirs(fixes_dir)
        fixes_yaml = os.path.join(fixes_dir, "fixes.yaml")
        out = front_end.run(case, exported, include, export=fixes_yaml)
        actual = diagnostics(out, exported)
        compare("diagnostics", case.messages, actual)

        # 2. --fix gives exactly the expected source.
        fixed = copy_to("fixed")
        front_end.run(case, fixed, include, fix=True)
        with open(fixed, encoding="utf-8") as f:
            fixed_source = f.read()
        compare("fixed source", case.expected_fixed_source().split("\n"), fixed_source.split("\n"))
        compile_ok(clang, case, fixed, include, "the fixed source")

        # 3. clang-apply-replacements on the exported fixes agrees with --fix.
        if os.path.exists(fixes_yaml):
            proc = subprocess.run([apply_replacements, fixes_dir], capture_output=True, text=True)
            if proc.returncode != 0:
                raise CaseError(f"clang-apply-replacements failed:\n{proc.stderr}")
        with open(exported, encoding="utf-8") as f:
            compare("clang-apply-replacements result vs --fix", fixed_source.split("\n"), f.read().split("\n"))

        # 4. Idempotence: the fixed file has nothing left to fix.
        again = copy_to("again")
        shutil.copyfile(fixed, again)
        out = front_end.run(case, again, include, fix=True)
        with open(again, encoding="utf-8") as f:
            compare("second --fix run", fixed_source.split("\n"), f.read().split("\n"))
        first_warnings = [m for m in actual if ": warning: " in m]
        remaining = [m for m in diagnostics(out, again) if ": warning: " in m]
        expected_remaining = len(first_warnings) - warnings_with_fixes(fixes_yaml)
        if len(remaining) != expected_remaining:
            raise CaseError(f"second run reports {len(remaining)} warnings, expected "
                            f"{expected_remaining} (the ones without a fix):\n" + "\n".join(remaining))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gradlint", required=True)
    parser.add_argument("--clang", required=True)
    parser.add_argument("--apply-replacements", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("case")
    opts = parser.parse_args()
    try:
        case = LintCase(opts.case)
        run_case(case, GradlintFrontEnd(opts.gradlint), opts.clang,
                 opts.apply_replacements, opts.include)
    except CaseError as e:
        print(f"FAIL {opts.case}: {e}", file=sys.stderr)
        return 1
    print(f"PASS {opts.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
