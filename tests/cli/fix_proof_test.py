#!/usr/bin/env python3
"""The fix proof (checks/utils/FixProof.h) as a user meets it: a fix that
does not compile is withdrawn, in every output, and the run still succeeds.

The mutation check: GRADLINT_FAULT_INJECTION=break-fixes makes every check
offer a fix that cannot compile (a test-only fault hook); the proof must
catch every one of them, in the gradlint command and in the plugin loaded
into the stock clang-tidy, while the same file without the fault is fixed.
"""

import json
import re
import os
import subprocess
import unittest

import yaml

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]
CLANG = os.environ.get("GRADLINT_CLANG", "clang++-22")
CLANG_TIDY = os.environ.get("GRADLINT_CLANG_TIDY")
PLUGIN = os.environ.get("GRADLINT_PLUGIN")
FLAGS = ["-std=c++17", f"-I{INCLUDE}"]

# One finding of each check, each with a fix.
SOURCE = """#include "tensor.h"
#include "autodiff.h"
#include <any>
#include <functional>
using namespace mock;
Tensor<float, 4> join(const Tensor<float, 4> &x) { return cat(x, x, 3); }
std::any scale_pullback(const ad::Tensor &dy) { return std::any(dy * 2.0f); }
float use(const ad::Tensor &w) {
  std::function<ad::Tensor(ad::Tensor)> pullback = [w](ad::Tensor dy) { return dy * w; };
  return pullback(ad::Tensor{1.0f}).value;
}
"""
FIXED = (SOURCE.replace("cat(x, x, 3)", "cat<3>(x, x)")
         .replace("std::any scale_pullback", "ad::Tensor scale_pullback")
         .replace("return std::any(dy * 2.0f);", "return dy * 2.0f;")
         .replace("std::function<ad::Tensor(ad::Tensor)> pullback", "auto pullback"))
# The note on each withdrawn fix quotes the compiler's first error, which
# names the injected fault.
WITHDRAWN = re.compile(r"note: fix withdrawn: with it the code does not compile: "
                       r"[^\n]*gradlint_injected_fault")


class FixProofTest(ScratchDirTest):
    prefix = "gradlint-proof-"

    def run_tool(self, command, fault):
        env = dict(os.environ)
        env.pop("GRADLINT_FAULT_INJECTION", None)
        if fault:
            env["GRADLINT_FAULT_INJECTION"] = "break-fixes"
        return subprocess.run(command, cwd=self.dir, capture_output=True, text=True, env=env)

    def gradlint(self, *args, fault=False):
        return self.run_tool([GRADLINT, *args, "--", *FLAGS], fault)

    def assertCompiles(self, name):
        r = subprocess.run([CLANG, "-fsyntax-only", *FLAGS, os.path.join(self.dir, name)],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_without_the_fault_every_fix_is_applied(self):
        self.write("a.cpp", SOURCE)
        r = self.gradlint("--fix", "a.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("fix withdrawn", r.stdout)
        self.assertEqual(self.read("a.cpp"), FIXED)
        self.assertCompiles("a.cpp")

    def test_broken_fixes_are_withdrawn_and_the_run_succeeds(self):
        self.write("a.cpp", SOURCE)
        r = self.gradlint("--fix", "a.cpp", fault=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE)  # nothing applied
        self.assertEqual(r.stdout.count(": warning: "), 3, r.stdout)
        self.assertEqual(len(WITHDRAWN.findall(r.stdout)), 3, r.stdout)

    def test_withdrawn_fixes_are_not_exported_or_reported(self):
        self.write("a.cpp", SOURCE)
        r = self.gradlint("--export-fixes=fixes.yaml", "--format=json", "a.cpp", fault=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "fixes.yaml")) as f:
            exported = yaml.safe_load(f) or {}
        for d in exported.get("Diagnostics", []):
            self.assertEqual(d["DiagnosticMessage"].get("Replacements", []), [], d)
        report = json.loads(r.stdout)
        self.assertEqual(len(report["findings"]), 3)
        for finding in report["findings"]:
            self.assertFalse(finding.get("fixes"), finding)

    # The sanitizer build (scripts/sanitize.sh) has no plugin: it could only
    # be loaded into an instrumented clang-tidy.
    @unittest.skipUnless(CLANG_TIDY and PLUGIN and os.path.exists(PLUGIN),
                         "needs clang-tidy and the plugin")
    def test_the_plugin_in_stock_clang_tidy_withdraws_them_too(self):
        self.write("a.cpp", SOURCE)
        command = [CLANG_TIDY, f"--load={PLUGIN}", "--checks=-*,gradlint-*", "--fix",
                   "a.cpp", "--", *FLAGS]
        r = self.run_tool(command, fault=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE)
        self.assertEqual(len(WITHDRAWN.findall(r.stdout)), 3, r.stdout)
        r = self.run_tool(command, fault=False)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("a.cpp"), FIXED)

    def test_with_fix_errors_a_fix_may_not_add_an_error(self):
        # The file's own error is the baseline: fixes that add none are
        # applied, fixes that add one are withdrawn.
        broken = "int broken = undeclared_name;\n"
        self.write("a.cpp", SOURCE + broken)
        r = self.gradlint("--fix-errors", "a.cpp")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertNotIn("fix withdrawn", r.stdout)
        self.assertEqual(self.read("a.cpp"), FIXED + broken)
        self.write("a.cpp", SOURCE + broken)
        r = self.gradlint("--fix-errors", "a.cpp", fault=True)
        self.assertEqual(len(WITHDRAWN.findall(r.stdout)), 3, r.stdout)
        self.assertEqual(self.read("a.cpp"), SOURCE + broken)


if __name__ == "__main__":
    unittest.main()
