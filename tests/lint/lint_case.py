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
    // GRADLINT-REQUIRES: /path             skip the case when the file is
                                             missing (CUDA headers)
    // GRADLINT-REQUIRES: llvm-N             skip the case when gradlint is
                                             built against an LLVM older
                                             than N (the --clang given)
    // GRADLINT-RUN:                         build and run the input and the
                                             fixed file: same output, same status
    // CLANGD-OMITS-PREVIOUS: reason         the CHECK-MESSAGES line above is
                                             not published by clangd
    // LLVM19-PREVIOUS: A => B               against LLVM 19, the CHECK-MESSAGES
                                             line above reads with A replaced
                                             by B (clang 19 prints some types
                                             differently, e.g. in 'aka')

Every case runs through one front end per invocation (--front-end): the
gradlint command, the stock clang-tidy with the plugin, or gradlint-clangd
over LSP. clangd capitalises messages and appends " (fix available)"; the
runner undoes that before comparing.

Unlike FileCheck's partial matching, the runner is exact:
  * the diagnostics printed must be exactly the CHECK-MESSAGES lines, in
    order (a location is ':LINE:COL' in the case file or 'header.h:LINE:COL';
    both sides are put in one order first, each warning with its notes: the
    case file's, then each header's, each by place, see in_file_order);
  * the fixed file must be exactly the input with each line that is followed
    by CHECK-FIXES replaced by that text (indentation kept) and nothing else;
    several CHECK-FIXES after one line replace it by as many lines (a fix
    that inserts a line: `using ns1::cat;` before a statement);
  * the input and the fixed file must compile (clang++ -fsyntax-only);
  * a second run over the fixed file must fix nothing and report only the
    warnings that had no fix, less those a note says another finding's fix
    covers ("fixed together with ...") (idempotence);
  * --export-fixes + clang-apply-replacements must give the same file as --fix;
  * fix isolation (the gradlint command): each warning's fix applied alone
    to the input compiles, and for GRADLINT-RUN cases the program behaves
    as the input does, just as all fixes applied together must.
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

from lsp_client import LspClient, apply_edits, offset_of, uri_to_path

DIAG_RE = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<level>warning|error|note): (?P<msg>.*)$")
DIRECTIVE_RE = re.compile(
    r"^\s*// (CHECK-MESSAGES|CHECK-FIXES|GRADLINT-ARGS|GRADLINT-CONFIG|GRADLINT-REQUIRES|"
    r"GRADLINT-RUN|CLANGD-OMITS-PREVIOUS|LLVM19-PREVIOUS):(.*)$")
# ctest's SKIP_RETURN_CODE for cases whose GRADLINT-REQUIRES file is missing.
SKIP = 77
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
        self.requires = []
        self.run = False
        self.messages = []
        # Indices into messages that clangd legitimately does not publish.
        self.omitted_by_clangd = set()
        # Index into messages -> [(old, new)] applied against LLVM 19.
        self.llvm19_edits = {}
        # The LLVM major version the case runs against (main() sets it).
        self.llvm_major = 22
        self.expected_fixed = list(self.lines)
        self._parse()

    def _parse(self):
        code_line = None  # 0-based index of the last non-directive line
        fixed_lines = set()  # the code lines a CHECK-FIXES replaces
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
            elif kind == "GRADLINT-REQUIRES":
                self.requires.append(value)
            elif kind == "GRADLINT-RUN":
                self.run = True
            elif kind == "CHECK-MESSAGES":
                self.messages.append(self._resolve_lines(value, index + 1))
            elif kind == "CLANGD-OMITS-PREVIOUS":
                if not self.messages or not value:
                    raise CaseError(f"{self.name}:{index + 1}: CLANGD-OMITS-PREVIOUS needs a "
                                    "preceding CHECK-MESSAGES and a reason")
                self.omitted_by_clangd.add(len(self.messages) - 1)
            elif kind == "LLVM19-PREVIOUS":
                old, arrow, new = value.partition(" => ")
                if not self.messages or not arrow or old not in self.messages[-1]:
                    raise CaseError(f"{self.name}:{index + 1}: LLVM19-PREVIOUS needs a preceding "
                                    "CHECK-MESSAGES that contains the text before ' => '")
                self.llvm19_edits.setdefault(len(self.messages) - 1, []).append((old, new))
            elif kind == "CHECK-FIXES":
                if code_line is None:
                    raise CaseError(f"{self.name}:{index + 1}: CHECK-FIXES before any code")
                indent = re.match(r"\s*", self.lines[code_line]).group(0)
                if code_line in fixed_lines:  # another line where the fix inserts one
                    self.expected_fixed[code_line] += "\n" + indent + value
                else:
                    self.expected_fixed[code_line] = indent + value
                fixed_lines.add(code_line)
        if not self.messages and "CHECK-FIXES" in self.source:
            raise CaseError(f"{self.name}: CHECK-FIXES without CHECK-MESSAGES")

    @staticmethod
    def _resolve_lines(value, directive_line):
        def repl(m):
            return str(directive_line + int(m.group(1) or 0))
        return LINE_REF_RE.sub(repl, value)

    def expected_messages(self, front_end):
        messages = list(self.messages)
        if self.llvm_major < 22:
            for i, edits in self.llvm19_edits.items():
                for old, new in edits:
                    messages[i] = messages[i].replace(old, new)
        if front_end.name != "clangd":
            return messages
        return [m for i, m in enumerate(messages) if i not in self.omitted_by_clangd]

    def expected_fixed_source(self):
        return "\n".join(self.expected_fixed)


class CommandFrontEnd:
    """A clang-tidy style command: the gradlint command, as users run it,
    or the stock clang-tidy loading the gradlint plugin."""

    exports_fixes = True

    def __init__(self, name, command):
        self.name = name
        self.command = command

    def run(self, case, path, include, fix=False, export=None):
        cmd = [*self.command, f"--checks=-*,{case.check}", "--quiet"]
        if case.config:
            cmd.append(f"--config={case.config}")
        if fix:
            cmd.append("--fix")
        if export:
            cmd.append(f"--export-fixes={export}")
        cmd += [path, "--", *case.args, f"-I{include}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CaseError(f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return proc.stdout


class ClangdFrontEnd:
    """gradlint-clangd driven over LSP, as an editor drives it: the case's
    configuration goes into a .clang-tidy file beside it (and no .clangd:
    the checks run under clangd's default fast-check filter), the
    diagnostics come from publishDiagnostics (notes as related
    information), and fixes are the edits of each diagnostic's quick fix."""

    name = "clangd"
    exports_fixes = False

    def __init__(self, binary):
        self.binary = binary
        self.warnings_with_fixes = 0

    def _configure(self, case, directory, include):
        with open(os.path.join(directory, "compile_flags.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join([*case.args, f"-I{include}"]) + "\n")
        config = yaml.safe_load(case.config) if case.config else {}
        config["Checks"] = f"-*,{case.check}"
        with open(os.path.join(directory, ".clang-tidy"), "w", encoding="utf-8") as f:
            yaml.safe_dump(config, f)

    def run(self, case, path, include, fix=False, export=None):
        directory = os.path.dirname(path)
        self._configure(case, directory, os.path.abspath(include))
        self.warnings_with_fixes = 0
        with open(path, encoding="utf-8") as f:
            text = f.read()
        client = LspClient([self.binary, "--log=error", "--background-index=false",
                            "--clang-tidy", "--pch-storage=memory"], directory)
        try:
            uri = client.open(path, text)
            found = [d for d in client.wait_for_diagnostics(uri) if d.get("source") == "clang-tidy"]
            # LSP gives diagnostics no order (editors sort them by range);
            # clang-tidy prints them by location, so compare in that order.
            found.sort(key=lambda d: (d["range"]["start"]["line"], d["range"]["start"]["character"]))
            lines = []
            edits = []
            for d in found:
                lines.append(lsp_line(path, text, d["range"]["start"], d["severity"],
                                      f"{clangd_message(d['message'])} [{d['code']}]"))
                for info in d.get("relatedInformation", []):
                    note_path = uri_to_path(info["location"]["uri"])
                    lines.append(lsp_line(note_path, None, info["location"]["range"]["start"],
                                          3, clangd_message(info["message"])))
                # Ask even without fix: the count of fixable warnings is what
                # the export-fixes file gives the command-line front ends.
                quick_fix = client.quick_fix_edits(uri, d)
                self.warnings_with_fixes += d["severity"] == 2 and bool(quick_fix)
                if fix:
                    edits.extend(quick_fix)
        finally:
            client.close()
        if fix and edits:
            with open(path, "w", encoding="utf-8") as f:
                f.write(apply_edits(text, edits))
        return "\n".join(lines) + "\n"



def fixed_by_another(messages):
    """The warnings among \p messages (in order, each followed by its notes)
    that a note says another finding's fix covers ("fixed together with the
    concatenation at ...")."""
    covered, warning = [], None
    for m in messages:
        if ": warning: " in m:
            warning = m
        elif warning and ": note: fixed together with " in m:
            covered.append(warning)
            warning = None
    return covered

def clangd_message(message):
    """Undoes clangd's presentation of a clang-tidy message, its documented
    differences: the first letter capitalised and " (fix available)" added."""
    message = message.removesuffix(" (fix available)")
    return message[:1].lower() + message[1:]


def lsp_line(path, text, position, severity, message):
    """An LSP diagnostic in clang's `file:line:col: level: message` form."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    line_text = text.split("\n")[position["line"]]
    prefix = line_text[:offset_of(line_text, {"line": 0, "character": position["character"]})]
    column = len(prefix.encode("utf-8")) + 1
    level = {1: "error", 2: "warning", 3: "note", 4: "note"}[severity]
    return f"{path}:{position['line'] + 1}:{column}: {level}: {message}"


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


def in_file_order(messages):
    """\p messages (`file:line:col: level: text`, the case's own file
    written as an empty name) with each warning and its notes kept
    together, the case's file first, then other files by name, each by
    place. clang-tidy orders its findings by absolute path, so where the
    temporary copy lies beside the repository's headers (/tmp before or
    after /work) would otherwise decide the order of a header's finding."""
    blocks = []
    for m in messages:
        if not blocks or ": note: " not in m:
            blocks.append([m])
        else:
            blocks[-1].append(m)

    def place(block):
        file, line, col = block[0].split(":", 3)[:3]
        return (file != "", file, int(line or 0), int(col or 0))

    return [m for block in sorted(blocks, key=place) for m in block]


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


def run_program(clang, case, path, include, directory):
    exe = os.path.join(directory, "program")
    proc = subprocess.run([clang, *case.args, f"-I{include}", path, "-o", exe],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CaseError(f"{path} does not build:\n{proc.stderr}")
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return run.returncode, run.stdout


class Behaviour:
    """Builds and runs programs in a scratch directory, comparing each with
    the input's behaviour (status and output), which is run once."""

    def __init__(self, clang, case, include, tmp):
        self.clang, self.case, self.include, self.tmp = clang, case, include, tmp
        self.runs = 0
        self.before = self._run(case.path)
        if not self.before[1]:
            raise CaseError("GRADLINT-RUN case prints nothing: nothing to compare")

    def _run(self, path):
        self.runs += 1
        directory = os.path.join(self.tmp, f"run-{self.runs}")
        os.makedirs(directory)
        return run_program(self.clang, self.case, path, self.include, directory)

    def check(self, path, what):
        after = self._run(path)
        if self.before != after:
            raise CaseError(f"{what} behaves differently:\n"
                            f"input: status {self.before[0]}, output {self.before[1]!r}\n"
                            f"fixed: status {after[0]}, output {after[1]!r}")


def exported_fixes(export_path, source_path):
    """Each warning's fix in an --export-fixes file: (message, [(offset,
    length, text)]), in the order the diagnostics came."""
    if not os.path.exists(export_path):
        return []
    with open(export_path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    fixes = []
    for d in doc.get("Diagnostics", []):
        message = d["DiagnosticMessage"]
        edits = []
        for r in message.get("Replacements") or []:
            if os.path.realpath(r["FilePath"]) != os.path.realpath(source_path):
                raise CaseError(f"a fix edits {r['FilePath']}, not the case file")
            edits.append((r["Offset"], r["Length"], r["ReplacementText"]))
        if edits and d.get("Level") == "Warning":
            fixes.append((message["Message"], edits))
    return fixes


def apply_offsets(data, edits):
    for offset, length, text in sorted(edits, reverse=True):
        data = data[:offset] + text.encode("utf-8") + data[offset + length:]
    return data


def check_fixes_in_isolation(clang, case, include, tmp, fixes, behaviour):
    """Each fix applied alone to the input compiles and behaves the same."""
    with open(case.path, "rb") as f:
        original = f.read()
    for n, (message, edits) in enumerate(fixes):
        directory = os.path.join(tmp, f"isolated-{n}")
        os.makedirs(directory)
        path = os.path.join(directory, case.name)
        with open(path, "wb") as f:
            f.write(apply_offsets(original, edits))
        what = f"the input with only the fix for \"{message}\""
        compile_ok(clang, case, path, include, what)
        if behaviour:
            behaviour.check(path, what)


def warnings_with_fixes(export_path):
    if not os.path.exists(export_path):
        return 0
    with open(export_path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    return sum(1 for d in doc.get("Diagnostics", [])
               if d.get("Level") == "Warning" and d["DiagnosticMessage"].get("Replacements"))


def run_case(case, front_end, clang, apply_replacements, include):
    """Runs every check of the case; returns how many fixes were also
    checked alone."""
    isolated = 0
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
        out = front_end.run(case, exported, include,
                            export=fixes_yaml if front_end.exports_fixes else None)
        actual = diagnostics(out, exported)
        compare("diagnostics", in_file_order(case.expected_messages(front_end)),
                in_file_order(actual))

        # 2. --fix gives exactly the expected source.
        fixed = copy_to("fixed")
        front_end.run(case, fixed, include, fix=True)
        with open(fixed, encoding="utf-8") as f:
            fixed_source = f.read()
        compare("fixed source", case.expected_fixed_source().split("\n"), fixed_source.split("\n"))
        compile_ok(clang, case, fixed, include, "the fixed source")
        behaviour = Behaviour(clang, case, include, tmp) if case.run else None
        if behaviour:
            behaviour.check(fixed, "the fixed program")

        # 3. clang-apply-replacements on the exported fixes agrees with --fix.
        if front_end.exports_fixes:
            if os.path.exists(fixes_yaml):
                proc = subprocess.run([apply_replacements, fixes_dir], capture_output=True, text=True)
                if proc.returncode != 0:
                    raise CaseError(f"clang-apply-replacements failed:\n{proc.stderr}")
            with open(exported, encoding="utf-8") as f:
                compare("clang-apply-replacements result vs --fix", fixed_source.split("\n"),
                        f.read().split("\n"))

        # 4. Each fix on its own (once per case: the fixes are the same
        # through every front end, which the steps above check).
        if front_end.name == "gradlint":
            fixes = exported_fixes(fixes_yaml, exported)
            if len(fixes) > 1:
                check_fixes_in_isolation(clang, case, include, tmp, fixes, behaviour)
                isolated = len(fixes)

        if not front_end.exports_fixes:
            fixable = front_end.warnings_with_fixes  # from the first run

        # 5. Idempotence: the fixed file has nothing left to fix.
        again = copy_to("again")
        shutil.copyfile(fixed, again)
        out = front_end.run(case, again, include, fix=True)
        with open(again, encoding="utf-8") as f:
            compare("second --fix run", fixed_source.split("\n"), f.read().split("\n"))
        first_warnings = [m for m in actual if ": warning: " in m]
        remaining = [m for m in diagnostics(out, again) if ": warning: " in m]
        if front_end.exports_fixes:
            expected_remaining = len(first_warnings) - warnings_with_fixes(fixes_yaml)
        else:
            expected_remaining = len(first_warnings) - fixable
        # A warning whose note says another finding's fix covers it has no
        # fix of its own and is gone all the same.
        expected_remaining -= len(fixed_by_another(actual))
        if len(remaining) != expected_remaining:
            raise CaseError(f"second run reports {len(remaining)} warnings, expected "
                            f"{expected_remaining} (the ones without a fix):\n" + "\n".join(remaining))
    return isolated


def llvm_major(clang):
    """The major version of the LLVM the case runs against (its clang's)."""
    out = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+)", out)
    if not m:
        raise CaseError(f"cannot tell the version of {clang}: {out!r}")
    return int(m.group(1))


def satisfied(need, clang):
    """A GRADLINT-REQUIRES line: `llvm-N`, or a path that must exist."""
    m = re.fullmatch(r"llvm-(\d+)", need)
    if m:
        return llvm_major(clang) >= int(m.group(1))
    return os.path.exists(need)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--front-end", choices=["gradlint", "clang-tidy", "clangd"],
                        default="gradlint")
    parser.add_argument("--gradlint", help="the gradlint command")
    parser.add_argument("--clang-tidy", help="the stock clang-tidy")
    parser.add_argument("--plugin", help="libgradlint-tidy.so")
    parser.add_argument("--clangd", help="gradlint-clangd")
    parser.add_argument("--clang", required=True)
    parser.add_argument("--apply-replacements", required=True)
    parser.add_argument("--include", required=True)
    parser.add_argument("case")
    opts = parser.parse_args()
    try:
        case = LintCase(opts.case)
        case.llvm_major = llvm_major(opts.clang)
        missing = [need for need in case.requires if not satisfied(need, opts.clang)]
        if missing:
            print(f"SKIP {opts.case}: needs {', '.join(missing)}, which this machine or LLVM lacks")
            return SKIP
        if opts.front_end == "gradlint":
            front_end = CommandFrontEnd("gradlint", [opts.gradlint])
        elif opts.front_end == "clang-tidy":
            front_end = CommandFrontEnd("clang-tidy", [opts.clang_tidy, f"--load={opts.plugin}"])
        else:
            front_end = ClangdFrontEnd(os.path.abspath(opts.clangd))
        isolated = run_case(case, front_end, opts.clang, opts.apply_replacements, opts.include)
    except CaseError as e:
        print(f"FAIL {opts.case} [{opts.front_end}]: {e}", file=sys.stderr)
        return 1
    alone = f", each of {isolated} fixes also alone" if isolated else ""
    print(f"PASS {opts.case} [{opts.front_end}{alone}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
