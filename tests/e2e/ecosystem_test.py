#!/usr/bin/env python3
"""gradlint as a drop-in for clang-tidy's ecosystem, each with the real tool:
run-clang-tidy, clang-tidy-diff, CMake's CXX_CLANG_TIDY and
clang-apply-replacements over several translation units sharing a header."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

GRADLINT = os.environ["GRADLINT"]
LLVM_BIN = os.environ["GRADLINT_LLVM_BIN"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]
PROJECT = os.environ["GRADLINT_ECOSYSTEM_FIXTURE"]
CLANG_TIDY_DIFF = os.environ["GRADLINT_CLANG_TIDY_DIFF"]
PLUGIN = os.environ["GRADLINT_PLUGIN"]
CHECKS = "-checks=-*,gradlint-*"


def tool(name):
    return os.path.join(LLVM_BIN, name)


class EcosystemTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gradlint-eco-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.src = os.path.join(self.dir, "src")
        shutil.copytree(PROJECT, self.src)

    def run_ok(self, cmd, **kwargs):
        proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
        self.assertEqual(proc.returncode, 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}")
        return proc

    def configure(self, *extra):
        build = os.path.join(self.dir, "build")
        self.run_ok(["cmake", "-S", self.src, "-B", build, "-G", "Ninja",
                     f"-DCMAKE_CXX_COMPILER={tool('clang++')}",
                     f"-DGRADLINT_MOCK_INCLUDE={INCLUDE}", *extra])
        return build

    def read(self, name):
        with open(os.path.join(self.src, name), encoding="utf-8") as f:
            return f.read()

    def assert_fixed(self):
        self.assertIn("return mock::cat<1>(x, x);", self.read("blocks.h"))
        self.assertIn("return mock::cat<3>(widen(x), x);", self.read("encoder.cpp"))
        self.assertIn("return mock::cat<2>(x, widen(x));", self.read("decoder.cpp"))

    def test_run_clang_tidy_reports_every_translation_unit(self):
        build = self.configure()
        proc = self.run_ok([tool("run-clang-tidy"), "-clang-tidy-binary", GRADLINT,
                            "-p", build, CHECKS, "-header-filter=.*", "-quiet"])
        for where in ["encoder.cpp:4:33: warning: constant axis 3",
                      "decoder.cpp:4:33: warning: constant axis 2",
                      "blocks.h:8:26: warning: constant axis 1"]:
            self.assertIn(where, proc.stdout)

    def test_run_clang_tidy_fix_applies_the_shared_header_fix_once(self):
        build = self.configure()
        self.run_ok([tool("run-clang-tidy"), "-clang-tidy-binary", GRADLINT,
                     "-clang-apply-replacements-binary", tool("clang-apply-replacements"),
                     "-p", build, CHECKS, "-header-filter=.*", "-fix", "-quiet"])
        self.assert_fixed()
        self.assertEqual(self.read("blocks.h").count("cat<1>"), 1)

    def test_clang_tidy_diff_reports_changed_lines_only(self):
        build = self.configure()
        old = self.read("encoder.cpp")
        new = old + ("\nmock::Tensor<float, 4> extra(const mock::Tensor<float, 4> &x) {\n"
                     "  return mock::cat(x, x, 0);\n}\n")
        with open(os.path.join(self.src, "encoder.cpp"), "w", encoding="utf-8") as f:
            f.write(new)
        with open(os.path.join(self.dir, "old.cpp"), "w", encoding="utf-8") as f:
            f.write(old)
        diff = subprocess.run(["diff", "-U0", "--label", "a/encoder.cpp", "--label",
                               "b/encoder.cpp", os.path.join(self.dir, "old.cpp"),
                               os.path.join(self.src, "encoder.cpp")],
                              capture_output=True, text=True).stdout
        proc = self.run_ok([sys.executable, CLANG_TIDY_DIFF, "-p1", "-clang-tidy-binary", GRADLINT,
                            "-path", build, "-checks=-*,gradlint-*"],
                           input=diff, cwd=self.src)
        self.assertIn("encoder.cpp:8:26: warning: constant axis 0", proc.stdout)
        self.assertNotIn("constant axis 3", proc.stdout)

    def test_cmake_cxx_clang_tidy_reports_during_the_build(self):
        build = self.configure(f"-DCMAKE_CXX_CLANG_TIDY={GRADLINT};--checks=-*,gradlint-*")
        proc = self.run_ok(["cmake", "--build", build])
        self.assertIn("encoder.cpp:4:33: warning: constant axis 3", proc.stdout)
        self.assertIn("decoder.cpp:4:33: warning: constant axis 2", proc.stdout)

    def test_cmake_cxx_clang_tidy_warnings_as_errors_fail_the_build(self):
        build = self.configure(
            f"-DCMAKE_CXX_CLANG_TIDY={GRADLINT};--checks=-*,gradlint-*;--warnings-as-errors=*")
        proc = subprocess.run(["cmake", "--build", build], capture_output=True, text=True)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("error: constant axis", proc.stdout)

    @unittest.skipUnless(shutil.which("clang-tidy-14"), "no other clang-tidy version installed")
    def test_plugin_refuses_another_clang_tidy_version(self):
        proc = subprocess.run(["clang-tidy-14", f"--load={PLUGIN}", "--checks=-*,gradlint-*",
                               os.path.join(self.src, "encoder.cpp"), "--"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("libgradlint-tidy.so: built for clang-tidy 22", proc.stderr)
        self.assertIn("Use clang-tidy-22, or the gradlint command", proc.stderr)

    def test_clang_apply_replacements_applies_each_fix_once(self):
        build = self.configure()
        fixes = os.path.join(self.dir, "fixes")
        os.makedirs(fixes)
        for unit in ["encoder.cpp", "decoder.cpp"]:
            self.run_ok([GRADLINT, "-p", build, "--header-filter=.*", "--quiet",
                         f"--export-fixes={os.path.join(fixes, unit + '.yaml')}",
                         os.path.join(self.src, unit)])
        # Both exports carry the header's fix; it must be applied once.
        for unit in ["encoder.cpp", "decoder.cpp"]:
            with open(os.path.join(fixes, unit + ".yaml"), encoding="utf-8") as f:
                self.assertIn("blocks.h", f.read())
        self.run_ok([tool("clang-apply-replacements"), fixes])
        self.assert_fixed()
        self.run_ok([tool("clang++"), "-fsyntax-only", f"-I{INCLUDE}", "-std=c++17",
                     os.path.join(self.src, "encoder.cpp")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
