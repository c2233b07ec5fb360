#!/usr/bin/env python3
"""The result cache (--cache-dir, docs/cache.md): a warm run reports, fixes
and baselines byte for byte like a cold one; exactly the translation units
whose inputs changed are analysed again (a header's contents, a header that
newly shadows another on the include path, a macro on the command line, the
configuration, a check option, the gradlint executable); a corrupt entry is
ignored and rewritten; concurrent runs leave valid entries; the size bound
holds."""

import json
import os
import re
import shutil
import subprocess
import threading
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]

COMMON = """#include "tensor.h"
using namespace mock;
inline Tensor<float, 4> twice(const Tensor<float, 4> &x) { return cat(x, x, 3); }
"""
USES_COMMON = """#include "common.h"
Tensor<float, 4> f_{name}(const Tensor<float, 4> &x) {{ return cat(x, x, 2); }}
Tensor<float, 4> quiet_{name}(const Tensor<float, 4> &x) {{ return cat(x, x, 1); }} // NOLINT
"""
ALONE = """#include "tensor.h"
using namespace mock;
Tensor<float, 4> g(const Tensor<float, 4> &x) { return cat(x, x, 1); }
"""
FROM_CACHE = re.compile(r"gradlint: (\d+) of (\d+) translation units? from the cache")


class CacheTest(ScratchDirTest):
    prefix = "gradlint-cache-"

    def setUp(self):
        super().setUp()
        self.write("inc2/common.h", COMMON)
        self.write("inc/.keep", "")
        self.write("src/a.cpp", USES_COMMON.format(name="a"))
        self.write("src/b.cpp", USES_COMMON.format(name="b"))
        self.write("src/c.cpp", ALONE)
        self.database()
        self.cache = os.path.join(self.dir, "cache")

    def database(self, extra=()):
        # -Iinc before -Iinc2: a common.h put into inc later shadows inc2's.
        self.write("compile_commands.json", json.dumps([
            {"directory": self.dir, "file": f"src/{n}.cpp",
             "arguments": ["clang++", "-std=c++17", f"-I{INCLUDE}", "-Iinc", "-Iinc2", *extra,
                           "-c", f"src/{n}.cpp"]} for n in "abc"]))

    def run_gradlint(self, *args, binary=GRADLINT, cache=True, env=None):
        command = [binary, "-p", ".", *args] + ([f"--cache-dir={self.cache}"] if cache else [])
        return subprocess.run(command, cwd=self.dir, capture_output=True, text=True, env=env)

    def from_cache(self, proc):
        """How many translation units came from the cache (of 3)."""
        m = FROM_CACHE.search(proc.stderr)
        self.assertIsNotNone(m, proc.stderr)
        self.assertEqual(m.group(2), "3")
        return int(m.group(1))

    def entries(self):
        found = []
        for root, _, names in os.walk(self.cache):
            found += [os.path.join(root, n) for n in names if n.endswith(".json")]
        return found

    def test_warm_run_reports_byte_for_byte(self):
        for args in ([], ["--format=json"], ["--format=sarif"], ["--warnings-as-errors=*"]):
            with self.subTest(args=args):
                shutil.rmtree(self.cache, ignore_errors=True)
                fresh = self.run_gradlint(*args, cache=False)
                cold = self.run_gradlint(*args)
                warm = self.run_gradlint(*args)
                self.assertEqual(self.from_cache(cold), 0)
                self.assertEqual(self.from_cache(warm), 3)
                self.assertIn("constant axis 2", fresh.stdout)
                self.assertEqual(cold.stdout, fresh.stdout)
                self.assertEqual(warm.stdout, fresh.stdout)
                self.assertEqual(warm.returncode, fresh.returncode)
                # The NOLINT count survives the cache.
                for proc in (cold, warm):
                    self.assertIn("Suppressed 2 warnings (2 NOLINT).", proc.stderr)

    def test_baseline_from_cache(self):
        baseline = os.path.join(self.dir, "baseline.json")
        self.run_gradlint(f"--write-baseline={baseline}", cache=False)
        self.write("src/c.cpp", ALONE + "Tensor<float, 4> h(const Tensor<float, 4> &x) "
                   "{ return cat(x, x, 0); }\n")
        cold = self.run_gradlint(f"--baseline={baseline}", "--fail-on=warning")
        warm = self.run_gradlint(f"--baseline={baseline}", "--fail-on=warning")
        self.assertEqual(self.from_cache(warm), 3)
        self.assertEqual((warm.stdout, warm.returncode), (cold.stdout, cold.returncode))
        self.assertEqual(warm.returncode, 1)
        self.assertIn("constant axis 0", warm.stdout)
        self.assertNotIn("constant axis 2", warm.stdout)

    def test_fix_from_the_cache(self):
        self.run_gradlint()
        fixed = self.run_gradlint("--fix")
        self.assertEqual(self.from_cache(fixed), 3)
        self.assertEqual(fixed.returncode, 0, fixed.stderr)
        self.assertIn("return cat<3>(x, x);", self.read("inc2/common.h"))
        self.assertIn("return cat<2>(x, x);", self.read("src/a.cpp"))
        self.assertIn("return cat<1>(x, x);", self.read("src/c.cpp"))
        # NOLINT is respected from the cache too.
        self.assertIn("cat(x, x, 1); } // NOLINT", self.read("src/a.cpp"))
        # Every file changed: nothing is reused, nothing is left.
        after = self.run_gradlint()
        self.assertEqual(self.from_cache(after), 0)
        self.assertNotIn("warning:", after.stdout)

    def test_header_change_reanalyses_its_includers_only(self):
        self.run_gradlint()
        self.write("inc2/common.h", COMMON + "// edited\n")
        self.assertEqual(self.from_cache(self.run_gradlint()), 1)
        self.assertEqual(self.from_cache(self.run_gradlint()), 3)

    def test_header_that_shadows_another_on_the_include_path(self):
        self.run_gradlint()
        self.write("inc/common.h", COMMON.replace("cat(x, x, 3)", "cat(x, x, 0)"))
        proc = self.run_gradlint()
        self.assertEqual(self.from_cache(proc), 1)
        self.assertIn("constant axis 0", proc.stdout)

    def test_macro_on_the_command_line(self):
        self.run_gradlint()
        self.database(extra=["-DGRADLINT_CACHE_TEST=1"])
        self.assertEqual(self.from_cache(self.run_gradlint()), 0)
        self.assertEqual(self.from_cache(self.run_gradlint()), 3)

    def test_configuration_and_check_options(self):
        self.run_gradlint()
        self.write(".clang-tidy", "Checks: '-*,gradlint-*'\n")
        self.assertEqual(self.from_cache(self.run_gradlint()), 0)
        self.assertEqual(self.from_cache(self.run_gradlint()), 3)
        option = "--config={CheckOptions: {gradlint-runtime-concat-axis.MaxCallSiteNotes: 3}}"
        self.assertEqual(self.from_cache(self.run_gradlint(option)), 0)
        self.assertEqual(self.from_cache(self.run_gradlint(option)), 3)
        self.assertEqual(self.from_cache(self.run_gradlint("--line-filter=[{\"name\":\"a.cpp\"}]")), 0)

    def test_another_gradlint_executable(self):
        self.run_gradlint()
        other = os.path.join(self.dir, "gradlint-other")
        shutil.copy2(GRADLINT, other)
        with open(other, "ab") as f:
            f.write(b"\0")  # a rebuilt gradlint: same version string, other bytes
        proc = self.run_gradlint(binary=other)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.from_cache(proc), 0)

    def test_corrupt_entries_are_ignored_and_rewritten(self):
        expected = self.run_gradlint().stdout
        entries = self.entries()
        self.assertEqual(len(entries), 3)
        for i, path in enumerate(entries):
            with open(path, "r+b") as f:
                if i == 0:
                    f.truncate(os.path.getsize(path) // 2)  # truncated
                elif i == 1:
                    f.write(b"garbage")                      # corrupt
                else:
                    f.truncate(0)                            # empty
        proc = self.run_gradlint()
        self.assertEqual(self.from_cache(proc), 0)
        self.assertEqual(proc.stdout, expected)
        for path in self.entries():
            with open(path, encoding="utf-8") as f:
                json.load(f)
        self.assertEqual(self.from_cache(self.run_gradlint()), 3)

    def test_concurrent_runs_leave_valid_entries(self):
        results = [None] * 4
        def run(i):
            results[i] = self.run_gradlint("-j", "2")
        threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        fresh = self.run_gradlint(cache=False)
        for proc in results:
            self.assertEqual(proc.stdout, fresh.stdout)
        self.assertEqual(len(self.entries()), 3)
        self.assertEqual([n for r, _, ns in os.walk(self.cache) for n in ns if ".tmp-" in n], [])
        self.assertEqual(self.from_cache(self.run_gradlint()), 3)

    def test_size_bound_and_bad_settings(self):
        self.run_gradlint()
        self.assertEqual(len(self.entries()), 3)
        proc = self.run_gradlint("--cache-max-size=1")
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(self.entries(), [])
        bad = self.run_gradlint("--cache-max-size=lots")
        self.assertEqual(bad.returncode, 3)
        self.assertIn("invalid --cache-max-size 'lots'", bad.stderr)
        self.write("not-a-directory", "")
        blocked = subprocess.run([GRADLINT, "-p", ".", "--cache-dir=not-a-directory/cache"],
                                 cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(blocked.returncode, 3)
        self.assertIn("cannot create cache directory", blocked.stderr)

    def test_environment_variable(self):
        env = dict(os.environ, GRADLINT_CACHE_DIR=self.cache)
        self.run_gradlint(cache=False, env=env)
        self.assertEqual(self.from_cache(self.run_gradlint(cache=False, env=env)), 3)


if __name__ == "__main__":
    unittest.main(verbosity=2)
