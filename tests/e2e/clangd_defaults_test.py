#!/usr/bin/env python3
"""gradlint-clangd out of the box: in a project with no configuration the
gradlint checks report and fix under clangd's default fast-check filter,
next to clangd's own default checks; a project's .clang-tidy and .clangd
still turn them off, check by check or with `-*`."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lint"))
from lsp_client import LspClient, apply_edits  # noqa: E402

CLANGD = os.environ["GRADLINT_CLANGD"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]

SOURCE = """#include "tensor.h"
#include <functional>
#include <vector>
using std::vector;
using namespace mock;
Tensor<float, 4> join(const Tensor<float, 4> &x) {
  return cat(x, x, 3);
}
float twice(float v) {
  std::function<float(float)> pullback = [](float dy) { return 2 * dy; };
  return pullback(v);
}
"""

CONCAT = "gradlint-runtime-concat-axis"
STORAGE = "gradlint-erased-pullback-storage"
UNUSED_USING = "misc-unused-using-decls"  # one of clangd's own defaults


class ClangdDefaultsTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="gradlint-clangd-defaults-")
        self.addCleanup(shutil.rmtree, self.work)
        # No user configuration either: $HOME/.config/clangd/config.yaml.
        self.environ = dict(os.environ)
        self.addCleanup(os.environ.clear)
        self.addCleanup(os.environ.update, self.environ)
        os.environ["HOME"] = self.work
        os.environ.pop("XDG_CONFIG_HOME", None)
        self.project = os.path.join(self.work, "project")
        os.makedirs(self.project)
        self.path = os.path.join(self.project, "join.cpp")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(SOURCE)
        with open(os.path.join(self.project, "compile_flags.txt"), "w", encoding="utf-8") as f:
            f.write(f"-std=c++17\n-I{INCLUDE}\n")

    def write(self, name, text):
        with open(os.path.join(self.project, name), "w", encoding="utf-8") as f:
            f.write(text)

    def session(self, fix=False):
        """The codes of the clang-tidy diagnostics, and the text after every
        gradlint quick fix when `fix`."""
        client = LspClient([CLANGD, "--log=error", "--background-index=false",
                            "--pch-storage=memory"], self.project)
        try:
            uri = client.open(self.path, SOURCE)
            found = [d for d in client.wait_for_diagnostics(uri) if d.get("source") == "clang-tidy"]
            edits = []
            if fix:
                for d in found:
                    if d["code"].startswith("gradlint-"):
                        edits.extend(client.quick_fix_edits(uri, d))
        finally:
            client.close()
        return sorted(d["code"] for d in found), apply_edits(SOURCE, edits)

    def test_no_configuration_reports_and_fixes(self):
        codes, fixed = self.session(fix=True)
        self.assertEqual(codes, sorted([CONCAT, STORAGE, UNUSED_USING]))
        self.assertIn("  return cat<3>(x, x);\n", fixed)
        self.assertIn("  auto pullback = [](float dy) { return 2 * dy; };\n", fixed)

    def test_clang_tidy_file_disables_one_check(self):
        # clangd's own defaults apply only where nothing names a check;
        # gradlint's apply everywhere.
        self.write(".clang-tidy", f"Checks: -{CONCAT}\n")
        self.assertEqual(self.session()[0], [STORAGE])

    def test_clang_tidy_file_that_starts_with_minus_star_decides_alone(self):
        # As in clang-tidy, whose defaults come before a .clang-tidy too.
        self.write(".clang-tidy", "Checks: '-*,misc-unused-using-decls'\n")
        self.assertEqual(self.session()[0], [UNUSED_USING])

    def test_clang_tidy_file_that_lists_other_checks_keeps_gradlint(self):
        self.write(".clang-tidy", "Checks: 'readability-braces-around-statements'\n")
        self.assertEqual(self.session()[0], sorted([CONCAT, STORAGE]))

    def test_clangd_file_removes_one_check(self):
        self.write(".clangd", f"Diagnostics:\n  ClangTidy:\n    Remove: [{STORAGE}]\n")
        self.assertEqual(self.session()[0], [CONCAT])

    def test_user_configuration_removes_one_check(self):
        config = os.path.join(self.work, ".config", "clangd")
        os.makedirs(config)
        with open(os.path.join(config, "config.yaml"), "w", encoding="utf-8") as f:
            f.write(f"Diagnostics:\n  ClangTidy:\n    Remove: [{CONCAT}]\n")
        self.assertEqual(self.session()[0], [STORAGE])

    def test_explicit_strict_filter_still_runs_gradlint(self):
        self.write(".clangd", "Diagnostics:\n  ClangTidy:\n    FastCheckFilter: Strict\n")
        self.assertEqual(self.session()[0], sorted([CONCAT, STORAGE, UNUSED_USING]))


if __name__ == "__main__":
    unittest.main(verbosity=2)
