#!/usr/bin/env python3
"""gradlint through the pre-commit framework, with the real `pre-commit`.

A temporary git repository plays gradlint's repository: it holds this
tree's .pre-commit-hooks.yaml, committed, so that a project can name it by
`repo:` and `rev:` as it would name gradlint's. The project, another
temporary repository with a compilation database, installs the hook. A
commit that adds a finding is refused; after `gradlint --fix` the same
commit goes through. A commit of a file without findings goes through.

Environment: GRADLINT (the gradlint binary; its directory goes first on
PATH, as an installed gradlint would be), GRADLINT_SOURCE_DIR, PRE_COMMIT.
"""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli"))
from scratch import ScratchDirTest  # noqa: E402

GRADLINT = os.environ["GRADLINT"]
SOURCE_DIR = os.environ["GRADLINT_SOURCE_DIR"]
PRE_COMMIT = os.environ["PRE_COMMIT"]

CLEAN = """float twice(float x) { return 2 * x; }
"""
WITH_FINDING = """#include <functional>

float run(float dy) {
  std::function<float(float)> pullback = [](float g) { return g * 2; };
  return pullback(dy);
}
"""


class PreCommitTest(ScratchDirTest):
    prefix = "gradlint-pre-commit-"

    def setUp(self):
        super().setUp()
        self.env = dict(os.environ)
        self.env["PATH"] = os.path.dirname(GRADLINT) + os.pathsep + self.env["PATH"]
        self.env["PRE_COMMIT_HOME"] = os.path.join(self.dir, "cache")
        for who in ("AUTHOR", "COMMITTER"):
            self.env[f"GIT_{who}_NAME"] = "gradlint test"
            self.env[f"GIT_{who}_EMAIL"] = "test@example.invalid"
        # gradlint's repository, as pre-commit sees one.
        hooks_repo = os.path.join(self.dir, "gradlint-repo")
        os.makedirs(hooks_repo)
        shutil.copy(os.path.join(SOURCE_DIR, ".pre-commit-hooks.yaml"), hooks_repo)
        self.git(hooks_repo, "init", "-q")
        self.git(hooks_repo, "add", ".pre-commit-hooks.yaml")
        self.git(hooks_repo, "commit", "-q", "-m", "hooks")
        rev = self.git(hooks_repo, "rev-parse", "HEAD").stdout.strip()
        # The project.
        self.project = os.path.join(self.dir, "project")
        os.makedirs(os.path.join(self.project, "build"))
        self.git(self.project, "init", "-q")
        self.write("project/.pre-commit-config.yaml",
                   f"repos:\n  - repo: {hooks_repo}\n    rev: {rev}\n"
                   "    hooks:\n      - id: gradlint\n")
        entries = [{"directory": self.project, "file": os.path.join(self.project, name),
                    "command": f"clang++ -std=c++17 -c {name}"}
                   for name in ("clean.cpp", "model.cpp")]
        self.write("project/build/compile_commands.json", json.dumps(entries))
        self.write("project/.gitignore", "build/\n")
        self.write("project/clean.cpp", CLEAN)
        proc = self.run_pre_commit("install")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.git(self.project, "add", ".pre-commit-config.yaml", ".gitignore", "clean.cpp")
        first = self.git(self.project, "commit", "-q", "-m", "start", check=False)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)

    def git(self, cwd, *args, check=True):
        proc = subprocess.run(["git", *args], cwd=cwd, env=self.env,
                              capture_output=True, text=True)
        if check:
            self.assertEqual(proc.returncode, 0, f"git {' '.join(args)}:\n{proc.stderr}")
        return proc

    def run_pre_commit(self, *args):
        return subprocess.run([PRE_COMMIT, *args], cwd=self.project, env=self.env,
                              capture_output=True, text=True)

    def test_finding_refuses_the_commit_until_fixed(self):
        self.write("project/model.cpp", WITH_FINDING)
        self.git(self.project, "add", "model.cpp")
        refused = self.git(self.project, "commit", "-m", "model", check=False)
        self.assertNotEqual(refused.returncode, 0, "the commit with a finding went through")
        self.assertIn("gradlint-erased-pullback-storage", refused.stdout + refused.stderr)
        self.assertEqual(self.git(self.project, "log", "--oneline").stdout.count("\n"), 1)

        fix = subprocess.run([GRADLINT, "-p", "build", "--fix", "model.cpp"], cwd=self.project,
                             env=self.env, capture_output=True, text=True)
        self.assertEqual(fix.returncode, 0, fix.stdout + fix.stderr)
        self.assertIn("  auto pullback = [](float g) { return g * 2; };",
                      self.read("project/model.cpp").splitlines())
        self.git(self.project, "add", "model.cpp")
        accepted = self.git(self.project, "commit", "-m", "model", check=False)
        self.assertEqual(accepted.returncode, 0, accepted.stdout + accepted.stderr)
        self.assertIn("gradlint", accepted.stdout + accepted.stderr)  # the hook ran

    def test_clean_commit_goes_through(self):
        self.write("project/clean.cpp", CLEAN + "float thrice(float x) { return 3 * x; }\n")
        self.git(self.project, "add", "clean.cpp")
        accepted = self.git(self.project, "commit", "-m", "more", check=False)
        self.assertEqual(accepted.returncode, 0, accepted.stdout + accepted.stderr)
        self.assertIn("Passed", accepted.stdout + accepted.stderr)


if __name__ == "__main__":
    unittest.main()
