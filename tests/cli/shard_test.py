#!/usr/bin/env python3
"""Sharded runs (docs/shards.md): --shard I/N takes a deterministic, size-
balanced part of the database that moves little when files are added, and
`gradlint merge` of the N JSON reports gives, byte for byte, the report
(text, JSON, SARIF), exit status and baseline outcome of one whole run, a
finding in a header shared by several shards once."""

import json
import os
import subprocess
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]

SHARED = """#include "tensor.h"
using namespace mock;
inline Tensor<float, 4> shared(const Tensor<float, 4> &x) { return cat(x, x, 3); }
"""
SOURCE = """#include "shared.h"
Tensor<float, 4> f{i}(const Tensor<float, 4> &x) {{ return cat(x, x, {axis}); }}
Tensor<float, 4> q{i}(const Tensor<float, 4> &x) {{ return cat(x, x, 1); }} // NOLINT
{extra}"""
FILES = 9


class ShardTest(ScratchDirTest):
    prefix = "gradlint-shard-"

    def setUp(self):
        super().setUp()
        subprocess.run(["git", "init", "-q"], cwd=self.dir, check=True)
        self.write("src/shared.h", SHARED)
        self.names = []
        for i in range(FILES):
            self.add(i)
        self.database()

    def add(self, i, extra=""):
        # Different sizes, so that balancing by size has something to do.
        self.write(f"src/f{i}.cpp", SOURCE.format(i=i, axis=i % 3, extra=extra + "//" * (40 * i)))
        self.names.append(f"f{i}.cpp")

    def database(self):
        # Relative file names: the text report prints paths as clang spelled
        # them, which merge must reproduce.
        self.write("build/compile_commands.json", json.dumps([
            {"directory": os.path.join(self.dir, "src"), "file": name,
             "arguments": ["clang++", "-std=c++17", f"-I{INCLUDE}", "-c", name]}
            for name in self.names]))

    def gradlint(self, *args):
        return subprocess.run([GRADLINT, "-p", "build", *args], cwd=self.dir,
                              capture_output=True, text=True)

    def shards(self, n, *args):
        """The reports of the n shards (paths), each checked to succeed."""
        paths = []
        for i in range(1, n + 1):
            path = os.path.join(self.dir, f"shard-{i}-of-{n}.json")
            r = self.gradlint(f"--shard={i}/{n}", "--format=json", f"--output={path}", *args)
            self.assertIn(r.returncode, (0, 1, 2), r.stderr)
            paths.append(path)
        return paths

    def merge(self, *args):
        return subprocess.run([GRADLINT, "merge", *args], cwd=self.dir,
                              capture_output=True, text=True)

    def analysed(self, report):
        with open(report, encoding="utf-8") as f:
            return json.load(f)["run"]["analysed"]

    def test_merge_equals_the_whole_run_byte_for_byte(self):
        for args in ([], ["--format=json"], ["--format=sarif"], ["--fail-on=warning"]):
            whole = self.gradlint(*args)
            self.assertIn("shared.h", whole.stdout)
            for n in (1, 2, 3):
                with self.subTest(args=args, n=n):
                    merged = self.merge(*args, *self.shards(n))
                    self.assertEqual(merged.stdout, whole.stdout)
                    self.assertEqual(merged.returncode, whole.returncode, merged.stderr)
        # The header's finding once, though every shard reported it.
        self.assertEqual(self.gradlint().stdout.count("shared.h:3:"), 1)

    def test_compiler_errors_and_warnings_as_errors(self):
        self.add(FILES, extra="int broken(\n")
        self.database()
        for args in ([], ["--warnings-as-errors=*"]):
            whole = self.gradlint(*args)
            self.assertEqual(whole.returncode, 2)
            merged = self.merge(*self.shards(3, *args))
            self.assertEqual((merged.stdout, merged.returncode), (whole.stdout, whole.returncode))

    def test_baseline_outcome(self):
        baseline = os.path.join(self.dir, "baseline.json")
        self.gradlint(f"--write-baseline={baseline}")
        merged_baseline = os.path.join(self.dir, "merged-baseline.json")
        self.merge(f"--write-baseline={merged_baseline}", *self.shards(2))
        self.assertEqual(self.read("merged-baseline.json"), self.read("baseline.json"))
        # A new finding, a fixed one (a stale entry), in different shards.
        self.add(FILES, extra="Tensor<float, 4> n(const Tensor<float, 4> &x) "
                              "{ return cat(x, x, 0); }\n")
        self.write("src/f0.cpp", self.read("src/f0.cpp").replace("cat(x, x, 0)", "cat<0>(x, x)"))
        self.database()
        for args in ([f"--baseline={baseline}", "--fail-on=warning"],
                     [f"--baseline={baseline}", "--format=json"]):
            whole = self.gradlint(*args)
            merged = self.merge(*args, *self.shards(3))
            self.assertEqual(merged.stdout, whole.stdout)
            self.assertEqual(merged.returncode, whole.returncode)
            stale = [l for l in whole.stderr.splitlines() if "baseline" in l or l.startswith("  ")]
            self.assertTrue(any("no longer match" in l for l in stale), whole.stderr)
            for line in stale:
                self.assertIn(line, merged.stderr)

    def test_parts_are_disjoint_balanced_and_stable(self):
        for n in (2, 3, 4):
            parts = [self.analysed(p) for p in self.shards(n)]
            every = sorted(f for part in parts for f in part)
            self.assertEqual(every, sorted(f"src/{name}" for name in self.names))
            # Every machine computes the same parts.
            self.assertEqual(parts, [self.analysed(p) for p in self.shards(n)])
        sizes = [sum(os.path.getsize(os.path.join(self.dir, f)) + 4096 for f in part)
                 for part in parts]
        self.assertLess(max(sizes), 2 * min(sizes), parts)
        before = {f: i for i, part in enumerate(self.shards(3)) for f in self.analysed(part)}
        self.add(FILES)
        self.database()
        after = {f: i for i, part in enumerate(self.shards(3)) for f in self.analysed(part)}
        moved = [f for f in before if before[f] != after[f]]
        self.assertLessEqual(len(moved), 3, (before, after))

    def test_more_shards_than_files(self):
        reports = self.shards(12)
        self.assertIn([], [self.analysed(p) for p in reports])
        merged = self.merge("--format=json", *reports)
        self.assertEqual(merged.stdout, self.gradlint("--format=json").stdout)

    def test_help(self):
        r = self.merge("--help")
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith("usage: gradlint merge"), r.stdout)
        self.assertIn("gradlint merge REPORT.json", self.gradlint("--help").stdout)

    def test_bad_shards_and_reports(self):
        for bad in ("0/3", "4/3", "1/0", "x", "1/2/3", "-1/2"):
            r = self.gradlint(f"--shard={bad}")
            self.assertEqual(r.returncode, 3, bad)
            self.assertIn("invalid --shard", r.stderr)
        one, two, three = self.shards(3)
        cases = [
            ([one, two], "shard 3/3 is missing"),
            ([one, two, three, two], "given twice"),
            ([one, self.shards(2)[1], three], "one of 3"),
            ([self.write("whole.json", self.gradlint("--format=json").stdout), one], "a shard"),
            ([self.write("notes.txt", "hello")], "not JSON"),
            ([], "no reports given"),
            (["--format=yaml", one], "unknown --format"),
            (["--bogus=1", one], "unknown option"),
        ]
        baseline = os.path.join(self.dir, "b.json")
        self.gradlint(f"--write-baseline={baseline}")
        with_baseline = os.path.join(self.dir, "with-baseline.json")
        self.gradlint("--shard=1/1", "--format=json", f"--output={with_baseline}",
                      f"--baseline={baseline}")
        cases.append(([with_baseline], "run the shards without it"))
        for args, message in cases:
            with self.subTest(message=message):
                r = self.merge(*args)
                self.assertEqual(r.returncode, 3, r.stderr)
                self.assertIn(message, r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
