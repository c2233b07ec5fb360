#!/usr/bin/env python3
"""Tests of the gradlint command line: flags, configuration, bad input and
the documented exit codes (README.md, "Exit codes")."""

import os
import subprocess
import sys
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]

SOURCE = """#include "tensor.h"
using namespace mock;
Tensor<float, 4> f(const Tensor<float, 4> &x) { return cat(x, x, 3); }
"""
FIXED = SOURCE.replace("cat(x, x, 3)", "cat<3>(x, x)")
WARNING = ("a.cpp:3:66: warning: constant axis 3 passed to 'mock::cat' at run "
           "time; use its compile-time form [gradlint-runtime-concat-axis]")


def factory_source(result_type, define="", value="std::any(dy)",
                   call="std::any_cast<T>(back(dy))"):
    """A pullback factory returning a lambda as result_type, and a caller."""
    return ('#include "tensor.h"\n#include <any>\n#include <functional>\n'
            "using T = mock::Tensor<float, 4>;\n" + define +
            f"inline {result_type} id_pullback() {{\n"
            f"  return [](const T &dy) {{ return {value}; }};\n}}\n"
            "T run(const T &dy) {\n  auto back = id_pullback();\n"
            f"  return {call};\n}}\n")


class GradlintCommandTest(ScratchDirTest):
    prefix = "gradlint-cli-"

    def setUp(self):
        super().setUp()
        self.source = self.write("a.cpp", SOURCE)

    def gradlint(self, *args, compiler_args=True):
        cmd = [GRADLINT, *args]
        if compiler_args:
            cmd += ["--", "-std=c++17", f"-I{INCLUDE}"]
        return subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True)

    # --- output and exit codes -------------------------------------------

    def test_warning_in_clang_format_exits_0(self):
        r = self.gradlint("a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], os.path.join(self.dir, WARNING))
        self.assertIn("return cat(x, x, 3);", lines[1])      # source line
        self.assertRegex(lines[2], r"\| +~~\^$")              # caret
        self.assertRegex(lines[3], r"\| +<3>$")               # fix-it
        self.assertEqual(self.read("a.cpp"), SOURCE)          # no --fix, no edit

    def test_clean_file_exits_0_and_prints_nothing(self):
        self.write("a.cpp", FIXED)
        r = self.gradlint("--quiet", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")

    def test_warnings_as_errors_exits_1(self):
        r = self.gradlint("--warnings-as-errors=gradlint-*", "a.cpp")
        self.assertEqual(r.returncode, 1)
        self.assertIn("error: constant axis 3", r.stdout)
        self.assertIn("1 warning treated as error", r.stderr)

    def test_compiler_error_exits_2_and_fix_is_refused(self):
        self.write("a.cpp", SOURCE + "int broken( {\n")
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("[clang-diagnostic-error]", r.stdout)
        self.assertIn("Fixes have NOT been applied", r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE + "int broken( {\n")

    def test_fix_errors_applies_fixes_despite_compiler_errors(self):
        self.write("a.cpp", SOURCE + "int broken = undeclared;\n")
        r = self.gradlint("--fix-errors", "a.cpp")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(self.read("a.cpp"), FIXED + "int broken = undeclared;\n")

    def test_missing_source_file_exits_2(self):
        r = self.gradlint("missing.cpp")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no such file or directory", r.stdout)

    def test_unknown_flag_exits_3(self):
        r = self.gradlint("--no-such-flag", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("Unknown command line argument '--no-such-flag'", r.stderr)

    def test_missing_compilation_database_exits_3(self):
        r = self.gradlint("-p", os.path.join(self.dir, "nowhere"), "a.cpp",
                          compiler_args=False)
        self.assertEqual(r.returncode, 3)
        self.assertIn("no compilation database in", r.stderr)

    def test_internal_error_exits_4(self):
        r = self.gradlint("--gradlint-crash-for-testing", "a.cpp")
        self.assertEqual(r.returncode, 4)

    # --- configuration ----------------------------------------------------

    def test_malformed_config_exits_3(self):
        r = self.gradlint("--config={Checks: [", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("invalid --config", r.stderr)

    def test_malformed_clang_tidy_file_exits_3_without_editing(self):
        self.write(".clang-tidy", "Checks: [unclosed\n")
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn(".clang-tidy", r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE)

    def test_bad_option_value_exits_3_without_editing(self):
        r = self.gradlint(
            "--fix", "--config={CheckOptions: "
            "{gradlint-runtime-concat-axis.FunctionNames: 'c.t'}}", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("invalid FunctionNames for gradlint-runtime-concat-axis", r.stdout)
        self.assertEqual(self.read("a.cpp"), SOURCE)

    def test_bad_registration_entry_is_reported(self):
        r = self.gradlint("--config={CheckOptions: "
                          "{gradlint-type-erased-pullback.RegistrationFunctions: 'record'}}",
                          "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("invalid RegistrationFunctions entry for gradlint-type-erased-pullback: "
                      "'record': expected 'qualified::name:argument-index'", r.stdout)

    def test_bad_axis_arguments_entry_is_reported(self):
        r = self.gradlint("--config={CheckOptions: "
                          "{gradlint-runtime-concat-axis.AxisArguments: 'lib::join'}}",
                          "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("invalid AxisArguments entry for gradlint-runtime-concat-axis: "
                      "'lib::join': expected 'qualified::name:argument-index'", r.stdout)

    def test_config_file_and_config_are_exclusive(self):
        cfg = self.write("cfg.yaml", "Checks: '-*,gradlint-*'\n")
        r = self.gradlint(f"--config-file={cfg}", "--config={}", "a.cpp")
        self.assertEqual(r.returncode, 3)
        r = self.gradlint(f"--config-file={cfg}.missing", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("cannot read config file", r.stderr)

    def test_clang_tidy_file_is_discovered(self):
        self.write("sub/.clang-tidy",
                   "CheckOptions:\n  gradlint-runtime-concat-axis.FunctionNames: join\n")
        self.write("sub/b.cpp", SOURCE)
        self.assertEqual(self.gradlint("--quiet", "sub/b.cpp").stdout, "")
        self.assertIn("warning:", self.gradlint("--quiet", "a.cpp").stdout)

    def test_default_checks_are_gradlint_only(self):
        r = self.gradlint("--list-checks", compiler_args=False)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(r.stdout.split(), ["Enabled", "checks:", "gradlint-erased-pullback-storage",
                                            "gradlint-runtime-concat-axis",
                                            "gradlint-type-erased-pullback"])

    def test_no_checks_enabled_exits_3(self):
        r = self.gradlint("--checks=-*", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("no checks enabled", r.stderr)

    def test_dump_config_shows_every_option_with_its_default(self):
        r = self.gradlint("--dump-config", compiler_args=False)
        self.assertEqual(r.returncode, 0)
        for line in ["gradlint-runtime-concat-axis.FunctionNames: 'cat;concat;concatenate;hcat;vcat;stack'",
                     "gradlint-runtime-concat-axis.AxisParameterNames: 'axis;dim;dims;ax;dimension'",
                     "gradlint-runtime-concat-axis.AxisArguments: ''",
                     "gradlint-runtime-concat-axis.CompileTimeForms: ''",
                     "gradlint-runtime-concat-axis.FlagWithoutCompileTimeForm: 'false'",
                     "gradlint-runtime-concat-axis.MaxCallSiteNotes: '8'",
                     "gradlint-type-erased-pullback.PullbackNames: "
                     "'pullback;backward;vjp;grad_fn;*_pullback;*_backward;*Backward'",
                     "gradlint-type-erased-pullback.RRuleNames: 'rrule;rrule_*;*_rrule;vjp_rule'",
                     "gradlint-type-erased-pullback.RegistrationFunctions: ''",
                     "gradlint-type-erased-pullback.ErasedTypes: 'std::any;boost::any;"
                     "std::function;std::move_only_function;std::copyable_function'",
                     "gradlint-type-erased-pullback.TensorTypes: '*Tensor*;*Array*'",
                     "gradlint-erased-pullback-storage.ErasedCallables: "
                     "'std::function;std::move_only_function;std::copyable_function'",
                     "gradlint-erased-pullback-storage.PullbackNames: "
                     "'pullback;backward;vjp;grad_fn;*_pullback;*_backward;*Backward'",
                     "gradlint-erased-pullback-storage.RRuleNames: 'rrule;rrule_*;*_rrule;vjp_rule'"]:
            self.assertIn(line, r.stdout)

    # --- fixing -----------------------------------------------------------

    def test_fix_rewrites_the_file(self):
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("a.cpp"), FIXED)

    def test_fixes_of_two_checks_in_one_expression_both_apply(self):
        self.write("a.cpp", '#include "tensor.h"\n#include <any>\n'
                   "std::any mul_pullback(const mock::Tensor<float, 4> &dy) {\n"
                   "  return std::any(mock::cat(dy, dy, 1));\n}\n")
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.read("a.cpp"),
                         '#include "tensor.h"\n#include <any>\n'
                         "mock::Tensor<float, 4> mul_pullback(const mock::Tensor<float, 4> &dy) {\n"
                         "  return mock::cat<1>(dy, dy);\n}\n")

    def test_casts_through_a_pullback_factory_go_with_both_checks(self):
        # The storage check turns the factory's std::function into `auto`, so
        # the call through `back` returns the lambda's now concrete result and
        # its cast must go; with the type-erased check alone it must stay.
        source = factory_source("std::function<std::any(const T &)>")
        self.write("a.cpp", source)
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.read("a.cpp"),
                         factory_source("auto", value="dy", call="back(dy)"))
        self.write("a.cpp", source)
        r = self.gradlint("--fix", "--checks=-*,gradlint-type-erased-pullback", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.read("a.cpp"),
                         source.replace("return std::any(dy);", "return dy;"))

    def test_casts_stay_when_the_factory_result_cannot_become_auto(self):
        # A result type written by a macro is one the storage check reports
        # without a fix: calls through the factory still return std::any,
        # so their casts must stay (removing them would not compile).
        source = factory_source(
            "ERASED_PULLBACK",
            define="#define ERASED_PULLBACK std::function<std::any(const T &)>\n")
        self.write("a.cpp", source)
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.read("a.cpp"),
                         source.replace("return std::any(dy);", "return dy;"))

    def test_export_fixes_to_unwritable_path_exits_3(self):
        r = self.gradlint("--export-fixes=/nonexistent-dir/fixes.yaml", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("cannot write", r.stderr)

    def test_compilation_database_and_extra_args(self):
        self.write("build/compile_commands.json",
                   '[{"directory": "%s", "file": "a.cpp", '
                   '"command": "clang++ -std=c++17 -I%s -c a.cpp"}]' % (self.dir, INCLUDE))
        r = self.gradlint("-p", "build", "--quiet", "a.cpp", compiler_args=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(WARNING, r.stdout)
        # --extra-arg reaches the compiler: an #error guarded by a macro.
        self.write("a.cpp", "#ifdef BREAK\n#error broken\n#endif\n" + SOURCE)
        r = self.gradlint("-p", "build", "--extra-arg=-DBREAK", "a.cpp",
                          compiler_args=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("error: broken", r.stdout)

    @unittest.skipUnless(os.path.exists("/usr/local/cuda/bin/nvcc"), "no CUDA toolkit in /usr/local/cuda")
    def test_nvcc_compilation_database_entry(self):
        self.write("k.cu", SOURCE.replace("Tensor<float, 4> f(",
                                          "__global__ void k() {}\nTensor<float, 4> f("))
        self.write("build/compile_commands.json",
                   '[{"directory": "%s", "file": "k.cu", "command": "/usr/local/cuda/bin/nvcc '
                   '-gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC --expt-relaxed-constexpr '
                   '-std=c++17 -I%s -x cu -c k.cu -o k.o"}]' % (self.dir, INCLUDE))
        r = self.gradlint("-p", "build", "--quiet", "k.cu", compiler_args=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("k.cu:4:66: warning: constant axis 3", r.stdout)
        self.assertNotIn("error:", r.stdout)

    def test_check_profile_is_printed_and_no_file_is_written(self):
        r = self.gradlint("--enable-check-profile", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("clang-tidy checks profiling", r.stderr)
        self.assertRegex(r.stderr, r"\) +gradlint-runtime-concat-axis\n")
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.cpp"])
        r = self.gradlint("--enable-check-profile", "--store-check-profile=prof", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        stored = os.listdir(os.path.join(self.dir, "prof"))
        self.assertEqual(len(stored), 1, stored)
        self.assertRegex(stored[0], r"-a\.cpp\.json$")

    # --- JSON output --------------------------------------------------------

    def test_json_report_has_findings_notes_fixes_and_summary(self):
        import json
        self.write("b.cpp", '#include "tensor.h"\nusing namespace mock;\n'
                   "Tensor<float, 4> g(const Tensor<float, 4> &x, int axis) { return cat(x, x, axis); }\n"
                   "Tensor<float, 4> h(const Tensor<float, 4> &x) { return g(x, 1); }\n")
        r = self.gradlint("--format=json", "a.cpp", "b.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(r.stdout)
        self.assertEqual(report["version"], 1)
        self.assertEqual(report["tool"]["name"], "gradlint")
        self.assertEqual(report["summary"], {"files": 2, "findings": 2, "warnings": 2, "errors": 0})
        self.assertEqual(report["run"]["analysed"], ["a.cpp", "b.cpp"])
        self.assertEqual(report["run"]["complete"], False)  # files named, not the database
        self.assertIn("gradlint-runtime-concat-axis", report["run"]["checks"])
        first, second = report["findings"]
        self.assertRegex(first.pop("fingerprint"), r"^[0-9a-f]{32}$")
        # The lossless form gradlint merge reads back.
        raw = first.pop("raw")
        self.assertEqual((raw["check"], raw["level"], raw["warningAsError"]),
                         ("gradlint-runtime-concat-axis", "warning", False))
        self.assertEqual((raw["message"]["file"], raw["message"]["offset"]),
                         (os.path.join(self.dir, "a.cpp"), SOURCE.index("3)")))
        self.assertNotEqual(second["fingerprint"], "")
        self.assertEqual(first, {
            "context": "f",
            "check": "gradlint-runtime-concat-axis", "level": "warning",
            "message": "constant axis 3 passed to 'mock::cat' at run time; use its compile-time form",
            "file": os.path.join(self.dir, "a.cpp"), "line": 3, "column": 66,
            "offset": SOURCE.index("3)"), "notes": [],
            "fixes": [
                {"file": os.path.join(self.dir, "a.cpp"), "line": 3, "column": 59,
                 "offset": SOURCE.index("(x, x, 3)"), "length": 0, "replacement": "<3>"},
                {"file": os.path.join(self.dir, "a.cpp"), "line": 3, "column": 64,
                 "offset": SOURCE.index(", 3)"), "length": 3, "replacement": ""},
            ]})
        self.assertEqual((second["file"], second["line"], second["column"]),
                         (os.path.join(self.dir, "b.cpp"), 3, 76))
        self.assertEqual(second["fixes"], [])
        self.assertEqual([(n["line"], n["message"]) for n in second["notes"]][:2],
                         [(4, "'g' is called here with axis 1"),
                          (3, "every call passes a constant: make 'axis' a template parameter "
                              "of 'g' and call the compile-time form")])

    def test_json_report_to_a_file_and_with_fix(self):
        import json
        r = self.gradlint("--format=json", "--output=out/report.json", "--fix", "a.cpp")
        self.assertEqual(r.returncode, 3)  # no such directory
        self.assertIn("cannot write 'out/report.json'", r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE)  # and so no fix either
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.cpp"])
        r = self.gradlint("--format=json", "--output=report.json", "--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")  # neither the report nor handleErrors' text
        self.assertEqual(json.loads(self.read("report.json"))["summary"]["findings"], 1)
        self.assertEqual(self.read("a.cpp"), FIXED)
        self.assertEqual(sorted(os.listdir(self.dir)), ["a.cpp", "report.json"])

    def test_json_warnings_as_errors_and_bad_format(self):
        import json
        r = self.gradlint("--format=json", "--warnings-as-errors=*", "a.cpp")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(json.loads(r.stdout)["findings"][0]["level"], "error")
        r = self.gradlint("--format=xml", "a.cpp")
        self.assertEqual(r.returncode, 3)
        self.assertIn("unknown --format 'xml': expected text, json or sarif", r.stderr)

    def test_version(self):
        r = self.gradlint("--version", compiler_args=False)
        self.assertEqual(r.returncode, 0)
        self.assertIn("gradlint 0.1.0", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
