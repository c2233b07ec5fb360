#!/usr/bin/env python3
"""gradlint over a compilation database with -j: input selection, sorted and
de-duplicated output whatever the scheduling, --fix of a shared header once,
the progress line only on a terminal, and a broken file among good ones."""

import os
import pty
import re
import subprocess
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]

HEADER = """#include "tensor.h"
inline mock::Tensor<float, 2> shared(const mock::Tensor<float, 2> &a) { return mock::cat(a, a, 1); }
"""
SOURCE = """#include "shared.h"
mock::Tensor<float, 2> g{i}(const mock::Tensor<float, 2> &a) {{ return mock::cat(a, a, 0); }}
"""
FILES = 6
MESSAGE = "warning: constant axis {axis} passed to 'mock::cat' at run time; use its compile-time form [gradlint-runtime-concat-axis]"


def warning_lines(stdout):
    return [l for l in stdout.splitlines() if ": warning: " in l]


class ParallelTest(ScratchDirTest):
    prefix = "gradlint-parallel-"

    def setUp(self):
        super().setUp()
        self.write("src/shared.h", HEADER)
        entries = []
        for i in range(FILES):
            self.write(f"src/f{i}.cpp", SOURCE.format(i=i))
            entries.append('{"directory": "%s/src", "file": "f%d.cpp", '
                           '"command": "clang++ -std=c++17 -I%s -c f%d.cpp"}' % (self.dir, i, INCLUDE, i))
        self.write("build/compile_commands.json", "[" + ",\n".join(entries) + "]")
        # What every run over all files must print, in this order: the
        # sources by name, then the header (sorted by real path), once.
        self.expected = [f"{self.dir}/src/f{i}.cpp:2:85: " + MESSAGE.format(axis=0) for i in range(FILES)]
        self.expected.append(f"{self.dir}/src/shared.h:2:96: " + MESSAGE.format(axis=1))

    def gradlint(self, *args):
        return subprocess.run([GRADLINT, "-p", "build", "--header-filter=.*", *args], cwd=self.dir,
                              capture_output=True, text=True)

    def absolute(self, lines):
        # clang prints the header as the including file spelled it.
        return [l.replace(f"{self.dir}/src/./", f"{self.dir}/src/") if l.startswith("/")
                else f"{self.dir}/src/" + l.lstrip("./") for l in lines]

    def test_every_entry_sorted_and_the_header_finding_once_for_any_job_count(self):
        outputs = []
        for jobs in ("1", "2", "3", "2"):
            r = self.gradlint("-j", jobs)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.absolute(warning_lines(r.stdout)), self.expected, f"-j {jobs}")
            if jobs != "1":  # clang's per-file counts would interleave
                self.assertNotRegex(r.stderr, r"warnings? generated")
            outputs.append(r.stdout)
        self.assertEqual(len(set(outputs)), 1, "the output depends on the scheduling")

    def test_check_profile_runs_in_order_with_the_same_results(self):
        r = self.gradlint("-j", "2", "--enable-check-profile")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.absolute(warning_lines(r.stdout)), self.expected)
        # One table per file, as clang-tidy prints them, none interleaved.
        self.assertEqual(r.stderr.count("clang-tidy checks profiling"), FILES)
        self.assertEqual(r.stderr.count("Total Execution Time"), FILES)

    def test_default_job_count_is_the_cores(self):
        r = self.gradlint()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.absolute(warning_lines(r.stdout)), self.expected)

    def test_inputs_that_are_not_files_select_entries_by_regex(self):
        r = self.gradlint("-j", "2", r"f[13]\.cpp$")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.absolute(warning_lines(r.stdout)),
                         [self.expected[1], self.expected[3], self.expected[-1]])
        r = self.gradlint("nothing-matches-this")
        self.assertEqual(r.returncode, 3)
        self.assertIn("'nothing-matches-this' is not a file and matches no entry of the "
                      "compilation database", r.stderr)
        r = self.gradlint("f(")
        self.assertEqual(r.returncode, 3)
        self.assertIn("'f(' is neither a file nor a valid regular expression", r.stderr)

    def test_empty_database_is_a_usage_error(self):
        self.write("build/compile_commands.json", "[]")
        r = self.gradlint("-j", "2")
        self.assertEqual(r.returncode, 3)
        self.assertIn("has no entries", r.stderr)

    def test_fix_in_parallel_edits_the_shared_header_once(self):
        r = self.gradlint("-j", "2", "--quiet", "--fix")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.read("src/shared.h"), HEADER.replace("mock::cat(a, a, 1)", "mock::cat<1>(a, a)"))
        for i in range(FILES):
            self.assertEqual(self.read(f"src/f{i}.cpp"),
                             SOURCE.format(i=i).replace("mock::cat(a, a, 0)", "mock::cat<0>(a, a)"))
        before = {n: self.read(n) for n in ["src/shared.h"] + [f"src/f{i}.cpp" for i in range(FILES)]}
        r = self.gradlint("-j", "2", "--fix")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(warning_lines(r.stdout), [])
        self.assertEqual({n: self.read(n) for n in before}, before, "a second --fix changed something")

    def test_each_file_reports_under_its_own_checks(self):
        # Files whose first findings come from different checks, several per
        # worker: each check's diagnostic IDs are numbered afresh in each
        # file. The release before this test named a later file's findings
        # after the check that had their ID in an earlier file ("... [concat]
        # [storage]"), and so NOLINT(check) missed them.
        storage = """#include "autodiff.h"
#include <functional>
float s{i}(float w) {{
  std::function<ad::Tensor(const ad::Tensor &)> pullback = [w](const ad::Tensor &dy) {{ return dy * w; }};
  return pullback(ad::Tensor{{2.0f}}).value;
}}
"""
        concat = """#include "tensor.h"
mock::Tensor<float, 2> c{i}(const mock::Tensor<float, 2> &a) {{
  auto b = mock::cat(a, a, 1);
  return mock::cat(b, a, 0); // NOLINT(gradlint-runtime-concat-axis)
}}
"""
        entries = []
        for i in range(4):
            name = f"mix/m{i}.cpp"
            self.write(name, (storage if i % 2 == 0 else concat).format(i=i))
            entries.append('{"directory": "%s/mix", "file": "m%d.cpp", '
                           '"command": "clang++ -std=c++20 -I%s -c m%d.cpp"}' % (self.dir, i, INCLUDE, i))
        self.write("mixdb/compile_commands.json", "[" + ",\n".join(entries) + "]")
        expected = []
        for i in range(4):
            if i % 2 == 0:
                expected.append(f"m{i}.cpp:4:49: warning: pullback 'pullback' is stored in "
                                "'std::function<ad::Tensor (const ad::Tensor &)>'; its closure type "
                                "would do [gradlint-erased-pullback-storage]")
            else:
                expected.append(f"m{i}.cpp:3:28: warning: constant axis 1 passed to 'mock::cat' at "
                                "run time; use its compile-time form [gradlint-runtime-concat-axis]")
        for jobs in ("1", "2"):
            r = subprocess.run([GRADLINT, "-p", "mixdb", "-j", jobs], cwd=self.dir,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = [l.split("/mix/", 1)[-1] for l in warning_lines(r.stdout)]
            self.assertEqual(lines, expected, f"-j {jobs}")

    def test_a_broken_file_does_not_stop_the_others(self):
        self.write("src/f2.cpp", "#include \"shared.h\"\nint broken( {\n")
        r = self.gradlint("-j", "2")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("\nf2.cpp:2:14: error: expected ';' after top level declarator", r.stdout)
        warnings = self.absolute(warning_lines(r.stdout))
        self.assertEqual(warnings, [w for i, w in enumerate(self.expected) if i != 2])

    def test_progress_only_on_a_terminal(self):
        r = self.gradlint("-j", "2", "--quiet")
        self.assertNotRegex(r.stderr, r"\[\d+/\d+\]")
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(self.dir)
            os.execv(GRADLINT, [GRADLINT, "-p", "build", "-j", "2", "--quiet"])
        out = b""
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
        _, status = os.waitpid(pid, 0)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        progress = sorted(re.findall(r"\[(\d+)/(\d+)\] (\S+)", out.decode()))
        self.assertEqual(sorted(int(n) for n, _, _ in progress), list(range(1, FILES + 1)))
        self.assertEqual({total for _, total, _ in progress}, {str(FILES)})
        self.assertEqual(sorted(path for _, _, path in progress),
                         [f"{self.dir}/src/f{i}.cpp" for i in range(FILES)])


if __name__ == "__main__":
    unittest.main(verbosity=2)
