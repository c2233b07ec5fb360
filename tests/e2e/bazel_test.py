#!/usr/bin/env python3
"""The Bazel aspect (tools/bazel/gradlint.bzl) with Debian's Bazel 4.2.3,
offline: a JSON report per source of every cc_* target; after `bazel clean`
a build with the same --disk_cache runs no gradlint action; a change to a
header re-runs the actions of exactly the sources that include it; the check
aspect fails the build on findings and shows them.

Debian 12's Bazel needs its repositories given locally: Debian's rules_java,
platforms and skylib, and tools/bazel/debian/rules_cc in place of Debian's
rules_cc, which is written for newer Bazels. Skipped (status 77) without
bazel and those packages."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

GRADLINT = os.environ["GRADLINT"]
SOURCE_DIR = os.environ["GRADLINT_SOURCE_DIR"]
BAZEL = shutil.which("bazel")
DEBIAN_RULES = {
    "rules_java": "/usr/share/bazel/rules/java",
    "platforms": "/usr/share/bazel/platforms",
    "bazel_skylib": "/usr/share/bazel/tools/skylib",
}
MISSING = [p for p in DEBIAN_RULES.values() if not os.path.isdir(p)]


def spawns(log):
    """(source, cache hit) of each Gradlint action in a JSON execution log
    (a stream of JSON objects)."""
    with open(log, encoding="utf-8") as f:
        text = f.read()
    decoder, at, found = json.JSONDecoder(), 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return found
        entry, at = decoder.raw_decode(text, at)
        if entry.get("mnemonic") == "Gradlint":
            args = entry["commandArgs"]
            found.append((args[args.index("--") - 1], bool(entry.get("remoteCacheHit"))))


@unittest.skipIf(BAZEL is None or MISSING,
                 "needs Debian's bazel-bootstrap, bazel-rules-java, bazel-platforms, bazel-skylib")
class BazelAspectTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gradlint-bazel-")
        cls.ws = os.path.join(cls.tmp, "ws")
        shutil.copytree(os.path.join(SOURCE_DIR, "fixtures", "ecosystem", "bazel"), cls.ws)
        shutil.copy(os.path.join(SOURCE_DIR, "fixtures", "lint", "include", "tensor.h"),
                    os.path.join(cls.ws, "third_party", "mock"))
        with open(os.path.join(cls.ws, "WORKSPACE"), "w", encoding="utf-8") as f:
            f.write(f'local_repository(name = "gradlint", path = "{SOURCE_DIR}/tools/bazel")\n')
        cls.root = os.path.join(cls.tmp, "root")
        cls.disk_cache = os.path.join(cls.tmp, "disk-cache")

    @classmethod
    def tearDownClass(cls):
        subprocess.run([BAZEL, f"--output_user_root={cls.root}", "shutdown"], cwd=cls.ws,
                       capture_output=True)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def bazel(self, *args, aspect="gradlint_aspect", group="gradlint_reports"):
        log = os.path.join(self.tmp, "exec.json")
        command = [BAZEL, f"--output_user_root={self.root}", "build", "//...",
                   f"--aspects=@gradlint//:gradlint.bzl%{aspect}", f"--output_groups={group}",
                   f"--disk_cache={self.disk_cache}", f"--execution_log_json_file={log}",
                   f"--action_env=GRADLINT={GRADLINT}",
                   f"--override_repository=rules_cc={SOURCE_DIR}/tools/bazel/debian/rules_cc",
                   *(f"--override_repository={k}={v}" for k, v in DEBIAN_RULES.items()), *args]
        proc = subprocess.run(command, cwd=self.ws, capture_output=True, text=True, timeout=600)
        return proc, spawns(log)

    def test_1_reports_then_disk_cache_then_one_header(self):
        proc, ran = self.bazel()
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertEqual(sorted(s for s, _ in ran), ["app/main.cpp", "lib/lib.cpp", "other/other.cpp"])
        reports = {}
        for path in glob.glob(os.path.join(self.ws, "bazel-bin", "**", "*.gradlint.json"),
                              recursive=True):
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
            reports[os.path.basename(path)] = sorted(
                (os.path.basename(x["file"]), x["line"], x["message"]) for x in report["findings"])
        axis = "constant axis {} passed to 'mock::cat' at run time; use its compile-time form"
        self.assertEqual(reports, {
            "lib.lib_lib.cpp.gradlint.json": [("lib.cpp", 2, axis.format(2)),
                                              ("shared.h", 3, axis.format(3))],
            "app.app_main.cpp.gradlint.json": [("shared.h", 3, axis.format(3))],
            "other.other_other.cpp.gradlint.json": [("other.cpp", 2, axis.format(1))],
        })

        # After `bazel clean`, the disk cache gives every report back.
        subprocess.run([BAZEL, f"--output_user_root={self.root}", "clean"], cwd=self.ws,
                       check=True, capture_output=True)
        proc, ran = self.bazel()
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertEqual(len(ran), 3)
        self.assertTrue(all(hit for _, hit in ran), ran)

        # A header edit: the actions of its includers only run again.
        with open(os.path.join(self.ws, "lib", "shared.h"), "a", encoding="utf-8") as f:
            f.write("// edited\n")
        proc, ran = self.bazel()
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        self.assertEqual(sorted(s for s, hit in ran if not hit), ["app/main.cpp", "lib/lib.cpp"])

    def test_2_check_aspect_fails_on_findings(self):
        proc, _ = self.bazel(aspect="gradlint_check", group="gradlint_checks")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("warning: constant axis", proc.stdout + proc.stderr)
        self.assertIn("[gradlint-runtime-concat-axis]", proc.stdout + proc.stderr)


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    if result.skipped and not result.failures and not result.errors and result.testsRun == len(result.skipped):
        sys.exit(77)
    sys.exit(0 if result.wasSuccessful() else 1)
