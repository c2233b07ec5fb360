#!/usr/bin/env python3
"""gradlint's reports and CI adoption features: SARIF (checked with the
official SARIF Multitool, and by applying its fixes), --output for every
format, baselines (--write-baseline / --baseline), --diff-base,
--line-filter and --fail-on."""

import json
import os
import re
import subprocess
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]
MULTITOOL = os.environ["GRADLINT_SARIF_MULTITOOL"]
CHECKS = ["gradlint-erased-pullback-storage", "gradlint-runtime-concat-axis",
          "gradlint-type-erased-pullback"]

# Non-ASCII before a finding on its line: SARIF columns count UTF-16 code
# units (λ is one, 😀 two), clang's count bytes (2 and 4).
SOURCE = """#include "tensor.h"
#include <any>
using namespace mock;
namespace model {
Tensor<float, 4> f(const Tensor<float, 4> &x) { /* λ 😀 */ return cat(x, x, 3); }
Tensor<float, 4> g(const Tensor<float, 4> &x, int axis) { return cat(x, x, axis); }
Tensor<float, 4> h(const Tensor<float, 4> &x) { return g(x, 1); }
std::any mul_pullback(const Tensor<float, 4> &dy) { return std::any(dy); }
} // namespace model
"""


def run(args, cwd, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, **kw)


def utf16_index(line, column):
    """The index in the str `line` of 1-based UTF-16 column `column`."""
    units = 1
    for i, ch in enumerate(line):
        if units >= column:
            return i
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def apply_sarif_fixes(text, results, path):
    """text with the fix of every result (the one describing the result
    itself, not a note's alternative) applied to artifact `path`."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l))

    def index(line, column):
        return starts[line - 1] + utf16_index(lines[line - 1], column)

    edits = []
    for result in results:
        for fix in result.get("fixes", []):
            if fix["description"]["text"] != result["message"]["text"]:
                continue
            for change in fix["artifactChanges"]:
                if change["artifactLocation"]["uri"] != path:
                    continue
                for r in change["replacements"]:
                    d = r["deletedRegion"]
                    edits.append((index(d["startLine"], d["startColumn"]),
                                  index(d["endLine"], d["endColumn"]),
                                  r["insertedContent"]["text"]))
    for begin, end, new in sorted(edits, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


class ReportTest(ScratchDirTest):
    prefix = "gradlint-reports-"

    def setUp(self):
        super().setUp()
        self.source = self.write("src/a.cpp", SOURCE)

    def gradlint(self, *args, cwd=None):
        return run([GRADLINT, *args, "--", "-std=c++17", f"-I{INCLUDE}"], cwd or self.dir)

    def git(self, *args):
        r = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], self.dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def sarif(self, *args, cwd=None):
        r = self.gradlint("--format=sarif", *args, cwd=cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    # --- SARIF ------------------------------------------------------------

    def validate(self, path):
        """The SARIF Multitool's findings about the log at path."""
        out = path + ".validation"
        r = run([MULTITOOL, "validate", "--output", out, path], self.dir)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Analysis completed successfully", r.stdout)
        with open(out, encoding="utf-8") as f:
            return [(v.get("level", "warning"), v["ruleId"], v["message"].get("text", ""))
                    for v in json.load(f)["runs"][0].get("results", [])]

    def test_sarif_log_is_valid_for_the_official_validator(self):
        self.git("init", "-q")
        # From a subdirectory: paths are relative to the top of the work tree.
        r = self.gradlint("--format=sarif", "--output=../out.sarif", "a.cpp",
                          cwd=os.path.join(self.dir, "src"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(self.validate(os.path.join(self.dir, "out.sarif")), [])
        # The validator must be able to fail: a log without its rule ids.
        with open(os.path.join(self.dir, "out.sarif"), encoding="utf-8") as f:
            log = json.load(f)
        for result in log["runs"][0]["results"]:
            del result["ruleId"], result["ruleIndex"]
        self.write("broken.sarif", json.dumps(log))
        problems = self.validate(os.path.join(self.dir, "broken.sarif"))
        self.assertIn("SARIF1010", [rule for level, rule, _ in problems if level == "error"])

    def test_sarif_rules_results_locations_and_notes(self):
        self.git("init", "-q")
        log = self.sarif("src/a.cpp")
        self.assertEqual(log["version"], "2.1.0")
        run_ = log["runs"][0]
        self.assertEqual(run_["originalUriBaseIds"],
                         {"SRCROOT": {"uri": "file://" + os.path.realpath(self.dir) + "/"}})
        self.assertEqual(run_["columnKind"], "utf16CodeUnits")
        driver = run_["tool"]["driver"]
        self.assertEqual((driver["name"], driver["version"]), ("gradlint", "0.1.0"))
        self.assertEqual([r["id"] for r in driver["rules"]], CHECKS)
        for rule in driver["rules"]:
            self.assertTrue(rule["shortDescription"]["text"].startswith("Flags "), rule)
            self.assertTrue(rule["helpUri"].endswith("/docs/checks/" + rule["id"] + ".md"), rule)
            self.assertTrue(rule["help"]["markdown"].startswith("# " + rule["id"]), rule)
        results = run_["results"]
        self.assertEqual([(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
                          for r in results],
                         [("gradlint-runtime-concat-axis", 5), ("gradlint-runtime-concat-axis", 6),
                          ("gradlint-type-erased-pullback", 8)])
        for r in results:
            self.assertEqual(driver["rules"][r["ruleIndex"]]["id"], r["ruleId"])
            self.assertEqual(r["level"], "warning")
            self.assertEqual(r["locations"][0]["physicalLocation"]["artifactLocation"],
                             {"uri": "src/a.cpp", "uriBaseId": "SRCROOT"})
        first = results[0]
        region = first["locations"][0]["physicalLocation"]["region"]
        line = SOURCE.splitlines()[4]
        # The axis '3': clang's column counts bytes, SARIF's UTF-16 units.
        prefix = line[:line.index("3);")]
        self.assertEqual(region["startColumn"], len(prefix.encode("utf-16-le")) // 2 + 1)
        self.assertEqual(region["startColumn"], len(prefix.encode()) + 1 - 3)
        self.assertEqual(region["snippet"]["text"], line)
        self.assertEqual(first["locations"][0]["logicalLocations"],
                         [{"fullyQualifiedName": "model::f"}])
        self.assertRegex(first["partialFingerprints"]["gradlintFingerprint/v1"], r"^[0-9a-f]{32}$")
        self.assertEqual(len({r["partialFingerprints"]["gradlintFingerprint/v1"] for r in results}), 3)
        # Notes are related locations, with their own positions.
        related = results[1]["relatedLocations"]
        self.assertEqual([(n["id"], n["message"]["text"], n["physicalLocation"]["region"]["startLine"])
                          for n in related][:2],
                         [(1, "'g' is called here with axis 1", 7),
                          (2, "every call passes a constant: make 'axis' a template parameter "
                              "of 'g' and call the compile-time form", 6)])
        self.assertNotIn("fixes", results[1])

    def test_sarif_fixes_applied_by_a_consumer_give_what_fix_gives(self):
        log = self.sarif("src/a.cpp")
        from_sarif = apply_sarif_fixes(SOURCE, log["runs"][0]["results"], "src/a.cpp")
        r = self.gradlint("--fix", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(from_sarif, self.read("src/a.cpp"))
        self.assertNotEqual(from_sarif, SOURCE)
        self.assertIn("return cat<3>(x, x); }", from_sarif)

    def test_sarif_to_stdout_with_fix_is_only_the_log(self):
        r = self.gradlint("--format=sarif", "--fix", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(json.loads(r.stdout)["runs"][0]["results"]), 3)
        self.assertIn("cat<3>(x, x)", self.read("src/a.cpp"))

    def test_file_outside_the_source_root_has_an_absolute_uri(self):
        os.makedirs(os.path.join(self.dir, "repo"))
        self.git("init", "-q", "repo")
        log = self.sarif(self.source, cwd=os.path.join(self.dir, "repo"))
        location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        self.assertEqual(location["artifactLocation"],
                         {"uri": "file://" + os.path.realpath(self.source)})

    # --- --output, --fail-on ------------------------------------------------

    def test_text_output_to_a_file(self):
        r = self.gradlint("--output=report.txt", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        text = self.read("report.txt")
        self.assertEqual(len(re.findall(r": warning: ", text)), 3, text)
        self.assertEqual(sorted(os.listdir(self.dir)), ["report.txt", "src"])  # no temporary left
        # Unwritable: exit 3, and the fix is not applied.
        r = self.gradlint("--output=missing/report.txt", "--fix", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("cannot write 'missing/report.txt'", r.stderr)
        self.assertEqual(self.read("src/a.cpp"), SOURCE)

    def test_fail_on(self):
        self.assertEqual(self.gradlint("src/a.cpp").returncode, 0)
        self.assertEqual(self.gradlint("--fail-on=error", "src/a.cpp").returncode, 0)
        r = self.gradlint("--fail-on=warning", "src/a.cpp")
        self.assertEqual(r.returncode, 1)
        self.assertIn("3 findings with --fail-on=warning", r.stderr)
        self.write("src/clean.cpp", "int main() { return 0; }\n")
        self.assertEqual(self.gradlint("--fail-on=warning", "src/clean.cpp").returncode, 0)
        r = self.gradlint("--fail-on=note", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("unknown --fail-on 'note'", r.stderr)

    # --- baseline -----------------------------------------------------------

    def test_baseline_suppresses_known_findings_across_edits_that_move_code(self):
        r = self.gradlint("--write-baseline=gradlint-baseline.json", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        baseline = json.loads(self.read("gradlint-baseline.json"))
        self.assertEqual(baseline["version"], 1)
        self.assertEqual(sorted((e["check"], e["file"], e["context"]) for e in baseline["findings"]),
                         [("gradlint-runtime-concat-axis", "src/a.cpp", "model::f"),
                          ("gradlint-runtime-concat-axis", "src/a.cpp", "model::g"),
                          ("gradlint-type-erased-pullback", "src/a.cpp", "model::mul_pullback")])
        r = self.gradlint("--baseline=gradlint-baseline.json", "--warnings-as-errors=*",
                          "--fail-on=warning", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)  # suppressed findings never fail
        self.assertNotIn("warning:", r.stdout)
        self.assertIn("Suppressed 3 findings in the baseline.", r.stderr)

        # Move code around: a new include and comment at the top, f after
        # g and h, g's body on its own line, and one new finding.
        lines = SOURCE.splitlines(keepends=True)
        new = "Tensor<float, 4> k(const Tensor<float, 4> &x) { return cat(x, x, 2); }\n"
        moved = ("// Copyright: the model\n#include <vector>\n\n" + "".join(lines[:4]) + "\n\n" +
                 lines[5].replace("{ return", "{\n    return") + lines[6] + "   " + lines[4] +
                 new + "".join(lines[7:]))
        self.write("src/a.cpp", moved)
        r = self.gradlint("--baseline=gradlint-baseline.json", "--warnings-as-errors=*", "src/a.cpp")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(re.findall(r"a\.cpp:(\d+):\d+: error: (.*) \[", r.stdout),
                         [(str(moved.splitlines().index(new.strip()) + 1),
                           "constant axis 2 passed to 'mock::cat' at run time; "
                           "use its compile-time form")])
        self.assertIn("Suppressed 3 findings in the baseline.", r.stderr)
        self.assertNotIn("no longer match", r.stderr)

    def test_stale_entries_are_listed_and_a_rewrite_drops_them(self):
        self.gradlint("--write-baseline=b.json", "src/a.cpp")
        self.write("src/a.cpp", SOURCE.replace("cat(x, x, 3)", "cat<3>(x, x)"))
        r = self.gradlint("--baseline=b.json", "--format=json", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["findings"], [])
        stale = report["summary"]["baseline"]["stale"]
        self.assertEqual([(s["check"], s["context"]) for s in stale],
                         [("gradlint-runtime-concat-axis", "model::f")])
        self.assertEqual(report["summary"]["baseline"]["suppressed"], 2)
        self.assertIn("1 baseline entry no longer matches any finding", r.stderr)
        self.assertIn("  src/a.cpp: gradlint-runtime-concat-axis: constant axis 3 passed to "
                      "'mock::cat' at run time; use its compile-time form (in model::f)", r.stderr)
        # Rewriting the baseline while using it: the stale entry goes.
        r = self.gradlint("--baseline=b.json", "--write-baseline=b.json", "src/a.cpp")
        self.assertEqual(len(json.loads(self.read("b.json"))["findings"]), 2)
        r = self.gradlint("--baseline=b.json", "src/a.cpp")
        self.assertNotIn("no longer match", r.stderr)

    def test_identical_findings_in_one_function_are_counted(self):
        twice = SOURCE.replace("return cat(x, x, 3); }",
                               "auto y = cat(x, x, 3);\n  return cat(y, y, 3); }")
        twice = twice.replace("auto y = cat(x, x, 3);", "auto y = cat(x, x, 3);\n  y = cat(x, x, 3);")
        self.write("src/a.cpp", twice)
        self.gradlint("--write-baseline=b.json", "src/a.cpp")
        self.assertEqual(len(json.loads(self.read("b.json"))["findings"]), 5)
        self.write("src/a.cpp", twice.replace("  y = cat(x, x, 3);\n", ""))
        r = self.gradlint("--baseline=b.json", "src/a.cpp")
        self.assertNotIn("warning:", r.stdout)
        self.assertIn("1 baseline entry no longer matches", r.stderr)

    def test_baseline_suppressed_findings_are_not_fixed(self):
        self.gradlint("--write-baseline=b.json", "src/a.cpp")
        self.write("src/a.cpp", SOURCE + "namespace model {\nTensor<float, 4> k(const Tensor<float, 4> &x) "
                   "{ return cat(x, x, 2); }\n}\n")
        r = self.gradlint("--baseline=b.json", "--fix", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        fixed = self.read("src/a.cpp")
        self.assertIn("cat<2>(x, x)", fixed)
        self.assertIn("cat(x, x, 3)", fixed)  # in the baseline: left alone

    def test_bad_baselines_exit_3_before_analysing(self):
        for name, text, message in [
                ("missing.json", None, "baseline 'missing.json': cannot read it"),
                ("syntax.json", "{", "baseline 'syntax.json': not valid JSON"),
                ("version.json", '{"version": 7, "findings": []}',
                 "baseline 'version.json': expected \"version\": 1"),
                ("entry.json", '{"version": 1, "findings": [{"check": "x"}]}',
                 "baseline 'entry.json': findings[0] has no \"fingerprint\" string")]:
            if text is not None:
                self.write(name, text)
            r = self.gradlint(f"--baseline={name}", "--fix", "src/a.cpp")
            self.assertEqual(r.returncode, 3, name)
            self.assertIn(message, r.stderr)
            self.assertEqual(self.read("src/a.cpp"), SOURCE)
        r = self.gradlint("--write-baseline=missing/b.json", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("cannot write baseline 'missing/b.json'", r.stderr)

    # --- changed lines ------------------------------------------------------

    def test_diff_base_reports_only_changed_lines(self):
        self.git("init", "-q")
        self.git("add", ".")
        self.git("commit", "-qm", "base")
        r = self.gradlint("--diff-base=HEAD", "src/a.cpp")
        self.assertEqual((r.returncode, r.stdout), (0, ""))
        self.assertIn("no changed lines since HEAD", r.stderr)
        self.write("src/a.cpp", SOURCE.replace("int axis) { return", "int axis) {  return"))
        r = self.gradlint("--diff-base=HEAD", "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(re.findall(r"a\.cpp:(\d+):\d+: warning", r.stdout), ["6"])
        self.assertIn("Suppressed 2 findings outside the lines changed since HEAD.", r.stderr)
        # Staged changes count too; a bad revision is a usage error.
        self.git("add", ".")
        self.assertEqual(re.findall(r"a\.cpp:(\d+):\d+: warning",
                                    self.gradlint("--diff-base=HEAD", "src/a.cpp").stdout), ["6"])
        r = self.gradlint("--diff-base=no-such-rev", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("--diff-base no-such-rev: git diff failed", r.stderr)
        r = self.gradlint("--diff-base=HEAD", "--line-filter=[]", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("mutually exclusive", r.stderr)

    def test_diff_base_over_a_database_analyses_only_changed_entries(self):
        # b.cpp does not compile; unchanged, it is not analysed.
        self.write("src/b.cpp", "int broken( {\n")
        self.write("build/compile_commands.json", json.dumps([
            {"directory": self.dir + "/src", "file": f, "command": f"clang++ -std=c++17 -I{INCLUDE} -c {f}"}
            for f in ("a.cpp", "b.cpp")]))
        self.git("init", "-q")
        self.git("add", ".")
        self.git("commit", "-qm", "base")
        # Documentation changes do not matter.
        self.write("README.md", "changed\n")
        self.git("add", "README.md")
        r = run([GRADLINT, "-p", "build", "--diff-base=HEAD"], self.dir)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("no entry of the compilation database changed since HEAD", r.stderr)
        self.write("src/a.cpp", SOURCE.replace("namespace model {", "namespace model { // changed"))
        r = run([GRADLINT, "-p", "build", "--diff-base=HEAD", "--fail-on=warning"], self.dir)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # A changed file that is not an entry (a header) could affect any
        # entry: all are analysed, and b.cpp's error shows.
        self.write("src/tensor_extra.h", "// new\n")
        self.git("add", "src/tensor_extra.h")
        r = run([GRADLINT, "-p", "build", "--diff-base=HEAD"], self.dir)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_pre_commit_hook_refuses_a_commit_with_a_new_finding(self):
        hook = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), "scripts", "pre-commit")
        clean = SOURCE.replace("cat(x, x, 3)", "cat<3>(x, x)")
        self.write("src/a.cpp", clean)
        self.write("build/compile_commands.json", json.dumps([
            {"directory": self.dir + "/src", "file": "a.cpp",
             "command": f"clang++ -std=c++17 -I{INCLUDE} -c a.cpp"}]))
        self.git("init", "-q")
        with open(hook, encoding="utf-8") as f:
            self.write(".git/hooks/pre-commit", f.read())
        os.chmod(os.path.join(self.dir, ".git/hooks/pre-commit"), 0o755)
        env = dict(os.environ, GRADLINT=GRADLINT)
        commit = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]
        # The first commit: every line is new, and the file has findings
        # (g and mul_pullback); a baseline of them lets it through.
        self.git("add", ".")
        r = run(commit, self.dir, env=env)
        self.assertNotEqual(r.returncode, 0, "the hook let findings through")
        self.assertIn("warning:", r.stdout + r.stderr)
        self.assertEqual(self.gradlint("--write-baseline=gradlint-baseline.json",
                                       "src/a.cpp").returncode, 0)
        self.git("add", ".")
        r = run(commit, self.dir, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # A change that adds a finding is refused; its fix goes through.
        self.write("src/a.cpp", clean.replace("cat<3>(x, x)", "cat(x, x, 3)"))
        r = run(commit[:-2] + ["-aqm", "finding"], self.dir, env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("a.cpp:5:", r.stdout + r.stderr)
        self.write("src/a.cpp", clean + "// a comment\n")
        r = run(commit[:-2] + ["-aqm", "clean"], self.dir, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_line_filter(self):
        r = self.gradlint('--line-filter=[{"name":"a.cpp","lines":[[6,8]]}]', "src/a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(re.findall(r"a\.cpp:(\d+):\d+: warning", r.stdout), ["6", "8"])
        r = self.gradlint("--line-filter=[{", "src/a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("invalid -line-filter", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
