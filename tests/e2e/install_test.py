#!/usr/bin/env python3
"""gradlint installed with `cmake --install`, used from outside the tree.

Installs the build into a temporary prefix, moves the prefix elsewhere (the
install must be relocatable), and from a project directory outside the
source and build trees runs what a user runs: `gradlint --version`, a
finding, `--fix` (the fixed file compiles), `--format=sarif` (help links
point at the installed check pages), the plugin in the stock clang-tidy-22,
gradlint-clangd over LSP, and the man page, generated from the real --help.

Environment: BUILD_DIR, CMAKE, GRADLINT_CLANG_TIDY, GRADLINT_CLANG.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lint"))
from lsp_client import LspClient, apply_edits  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli"))
from scratch import ScratchDirTest  # noqa: E402

BUILD_DIR = os.environ["BUILD_DIR"]
CMAKE = os.environ["CMAKE"]
CLANG_TIDY = os.environ["GRADLINT_CLANG_TIDY"]
CLANG = os.environ["GRADLINT_CLANG"]

SAMPLE = """#include <cstdio>
#include <functional>

int main() {
  std::function<float(float)> pullback = [](float dy) { return dy * 2; };
  std::printf("%g\\n", pullback(1.5f));
}
"""
WARNING = ("sample.cpp:5:31: warning: pullback 'pullback' is stored in "
           "'std::function<float (float)>'; its closure type would do "
           "[gradlint-erased-pullback-storage]")
FIXED_LINE = "  auto pullback = [](float dy) { return dy * 2; };"
CHECKS = "--checks=-*,gradlint-*"


class InstallTest(ScratchDirTest):
    prefix = "gradlint-install-"

    def setUp(self):
        super().setUp()
        staging = os.path.join(self.dir, "staging")
        proc = subprocess.run([CMAKE, "--install", BUILD_DIR, "--prefix", staging],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # Relocatable: the tree works wherever it is moved.
        self.prefix_dir = os.path.join(self.dir, "moved", "usr-local")
        os.makedirs(os.path.dirname(self.prefix_dir))
        shutil.move(staging, self.prefix_dir)
        self.project = os.path.join(self.dir, "project")
        self.sample = self.write("project/sample.cpp", SAMPLE)

    def tool(self, *parts):
        return os.path.join(self.prefix_dir, *parts)

    def run_in_project(self, cmd):
        return subprocess.run(cmd, cwd=self.project, capture_output=True, text=True)

    def test_layout(self):
        for parts in [("bin", "gradlint"), ("bin", "gradlint-clangd"),
                      ("lib", "gradlint", "libgradlint-tidy.so"),
                      ("share", "doc", "gradlint", "README.md"),
                      ("share", "man", "man1", "gradlint.1")]:
            self.assertTrue(os.path.isfile(self.tool(*parts)), "/".join(parts))
        for check in ["gradlint-runtime-concat-axis", "gradlint-type-erased-pullback",
                      "gradlint-erased-pullback-storage"]:
            self.assertTrue(os.path.isfile(self.tool("share", "doc", "gradlint", "checks",
                                                     check + ".md")), check)

    def test_version(self):
        proc = self.run_in_project([self.tool("bin", "gradlint"), "--version"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertRegex(proc.stdout, r"gradlint \d+\.\d+\.\d+ \(built with LLVM 22\.")

    def test_finding_and_fix(self):
        gradlint = self.tool("bin", "gradlint")
        proc = self.run_in_project([gradlint, CHECKS, "sample.cpp", "--", "-std=c++17"])
        self.assertIn(WARNING, proc.stdout)
        proc = self.run_in_project([gradlint, CHECKS, "--fix", "sample.cpp", "--", "-std=c++17"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn(FIXED_LINE, self.read("project/sample.cpp").splitlines())
        build = self.run_in_project([CLANG, "-std=c++17", "sample.cpp", "-o", "sample"])
        self.assertEqual(build.returncode, 0, build.stderr)
        run = self.run_in_project([os.path.join(self.project, "sample")])
        self.assertEqual(run.stdout, "3\n")

    def test_sarif_links_to_installed_pages(self):
        proc = self.run_in_project([self.tool("bin", "gradlint"), CHECKS, "--format=sarif",
                                    "sample.cpp", "--", "-std=c++17"])
        log = json.loads(proc.stdout)
        rules = log["runs"][0]["tool"]["driver"]["rules"]
        rule = next(r for r in rules if r["id"] == "gradlint-erased-pullback-storage")
        expected = "file://" + self.tool("share", "doc", "gradlint", "checks",
                                         "gradlint-erased-pullback-storage.md")
        self.assertEqual(rule["helpUri"], expected)
        self.assertEqual(log["runs"][0]["tool"]["driver"]["informationUri"],
                         "file://" + self.tool("share", "doc", "gradlint", "README.md"))
        self.assertEqual(log["runs"][0]["results"][0]["ruleId"],
                         "gradlint-erased-pullback-storage")

    def test_plugin_in_stock_clang_tidy(self):
        proc = self.run_in_project([CLANG_TIDY, "--load=" + self.tool("lib", "gradlint",
                                                                        "libgradlint-tidy.so"),
                                    CHECKS, "sample.cpp", "--", "-std=c++17"])
        self.assertIn(WARNING, proc.stdout, proc.stderr)

    def test_clangd_over_lsp(self):
        self.write("project/compile_flags.txt", "-std=c++17\n")
        # No .clangd: the installed gradlint-clangd runs the checks as it is.
        client = LspClient([self.tool("bin", "gradlint-clangd"), "--log=error",
                            "--background-index=false", "--clang-tidy"], self.project)
        try:
            uri = client.open(self.sample, SAMPLE)
            found = [d for d in client.wait_for_diagnostics(uri)
                     if d.get("source") == "clang-tidy"]
            self.assertEqual([d["code"] for d in found], ["gradlint-erased-pullback-storage"])
            edits = client.quick_fix_edits(uri, found[0])
        finally:
            client.close()
        self.assertIn(FIXED_LINE, apply_edits(SAMPLE, edits).splitlines())

    def test_man_page_is_the_real_help(self):
        with open(self.tool("share", "man", "man1", "gradlint.1"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn(".TH GRADLINT", page)
        help_text = self.run_in_project([self.tool("bin", "gradlint"), "--help"]).stdout
        for option in ["--baseline", "--fix", "--export-fixes"]:
            self.assertIn(option, help_text)
            self.assertIn(option.replace("-", r"\-"), page)


if __name__ == "__main__":
    unittest.main()
