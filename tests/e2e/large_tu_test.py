#!/usr/bin/env python3
"""gradlint on a generated translation unit of 100,000 lines
(bench/gen_large_tu.py: concatenations and pullbacks through templates,
lambdas and macros): it completes, finds exactly what the same generator's
small unit predicts, and reports its time and peak memory next to
`clang++ -fsyntax-only` on the same file (printed, not asserted: speed is the
benchmark's business, docs/benchmarks.md)."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gen_large_tu  # noqa: E402

GRADLINT = os.environ["GRADLINT"]
CLANG = os.environ["GRADLINT_CLANG"]
FLAGS = ["-std=c++17", "-I" + os.path.join(ROOT, "fixtures", "lint", "include")]
ROUND = 4 * len(gen_large_tu.BLOCKS)  # the generator's pattern repeats every 4 rounds


def generate(path, functions):
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_large_tu.py"),
                    "--functions", str(functions), path], check=True)


def measured(cmd):
    """(exit status, stderr, seconds, peak RSS in MiB) of cmd, its own
    resource usage (wait4), not the sum over children."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read().decode(errors="replace"), seconds, usage.ru_maxrss / 1024


class LargeTranslationUnitTest(unittest.TestCase):
    def test_100k_lines(self):
        with tempfile.TemporaryDirectory(prefix="gradlint-large-") as tmp:
            small, large = os.path.join(tmp, "small.cpp"), os.path.join(tmp, "large.cpp")
            generate(small, ROUND)
            rounds = 1
            while True:  # the smallest multiple of the pattern with >= 100k lines
                generate(large, ROUND * rounds)
                with open(large, encoding="utf-8") as f:
                    lines = sum(1 for _ in f)
                if lines >= 100_000:
                    break
                rounds = max(rounds + 1, int(rounds * 100_000 / lines) + 1)
            r = subprocess.run([GRADLINT, "--quiet", "--format=json", small, "--", *FLAGS],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            per_round = json.loads(r.stdout)["summary"]["findings"]
            self.assertGreater(per_round, 0)

            report = os.path.join(tmp, "report.json")
            status, stderr, seconds, peak = measured([GRADLINT, "--quiet", "--format=json",
                                                      f"--output={report}", large, "--", *FLAGS])
            self.assertEqual(status, 0, stderr[-2000:])
            with open(report, encoding="utf-8") as f:
                summary = json.load(f)["summary"]
            self.assertEqual(summary["findings"], per_round * rounds)
            self.assertEqual(summary["errors"], 0)
            status, stderr, parse_seconds, parse_peak = measured(
                [CLANG, "-fsyntax-only", *FLAGS, large])
            self.assertEqual(status, 0, stderr[-2000:])
            print(f"\n{lines} lines, {summary['findings']} findings: gradlint {seconds:.1f} s, "
                  f"peak {peak:.0f} MiB; clang++ -fsyntax-only {parse_seconds:.1f} s, "
                  f"peak {parse_peak:.0f} MiB", file=sys.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
