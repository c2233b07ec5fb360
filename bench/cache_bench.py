#!/usr/bin/env python3
"""The result cache (--cache-dir): cold, warm and one-header-changed runs.

For each corpus (a compilation database in a scratch copy of its sources),
times one `gradlint -p DB` process (wall clock, default -j)
  cold      an empty cache directory: every translation unit analysed and
            stored
  warm      the same run again: every translation unit from the cache
  one hdr   after an edit to one header: its includers analysed again
and uncached `gradlint -p DB` as the reference. Then shard scaling: the
generated database in N = 1, 2, 4, 8 shards (`--shard I/N`), each shard
timed alone (in CI they run at once on N machines, so the slowest is the
wall time), and `gradlint merge` of their reports. Several
rounds, median and min..max, ratios to the cold run. Corpora: the pullback
lint cases and the demo (52 files, real standard headers), the refcat
dense-block examples, and a generated database of 200 translation units
over 10 headers (20 includers each). A report, not a test.

usage: bench/cache_bench.py [--build build] [--rounds 3] [--units 200]
                            [--only fixtures,refcat,generated]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import machine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FROM_CACHE = re.compile(r"gradlint: (\d+) of (\d+) translation units? from the cache")

GENERATED_HEADER = """#pragma once
#include "tensor.h"
#include <functional>
#include <map>
#include <string>
#include <vector>
namespace gen{h} {{
using T = mock::Tensor<float, 4>;
inline T layer(const T &x) {{ return mock::cat(x, x, {axis}); }}
inline std::vector<std::function<T(const T &)>> tape(int n) {{
  std::vector<std::function<T(const T &)>> out;
  for (int i = 0; i < n; ++i) out.push_back([i](const T &dy) {{ return dy; }});
  return out;
}}
}}
"""
GENERATED_SOURCE = """#include "gen{h}.h"
#include <algorithm>
#include <numeric>
gen{h}::T unit{u}(const gen{h}::T &x) {{
  std::function<gen{h}::T(const gen{h}::T &)> pullback = [](const gen{h}::T &dy) {{ return dy; }};
  return pullback(gen{h}::layer(mock::cat(x, x, {axis})));
}}
"""


def run(gradlint, db, cache):
    """(seconds, translation units from the cache) of one run."""
    cmd = [gradlint, "-p", db] + ([f"--cache-dir={cache}"] if cache else [])
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"gradlint failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    m = FROM_CACHE.search(proc.stderr)
    return elapsed, (int(m.group(1)) if m else None)


def database(directory, files, flags):
    with open(os.path.join(directory, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{"directory": directory, "file": path,
                    "arguments": ["clang++", *flags, "-c", path]} for path in files], f)


def corpus_fixtures(work):
    include = os.path.join(work, "include")
    shutil.copytree(os.path.join(ROOT, "fixtures", "lint", "include"), include)
    files = []
    for check in ("gradlint-type-erased-pullback", "gradlint-erased-pullback-storage"):
        source = os.path.join(ROOT, "fixtures", "lint", check)
        for name in sorted(os.listdir(source)):
            if name.endswith(".cpp"):
                files.append(shutil.copy(os.path.join(source, name),
                                         os.path.join(work, f"{check}-{name}")))
    files.append(shutil.copy(os.path.join(ROOT, "fixtures", "demo", "dense_block.cpp"), work))
    database(work, files, ["-std=c++23", f"-I{include}"])
    return os.path.join(include, "autodiff.h")


def corpus_refcat(work):
    shutil.copytree(os.path.join(ROOT, "fixtures", "refcat", "include"), os.path.join(work, "include"))
    shutil.copytree(os.path.join(ROOT, "fixtures", "refcat", "examples"), os.path.join(work, "examples"))
    examples = os.path.join(work, "examples")
    files = sorted(os.path.join(examples, f) for f in os.listdir(examples) if f.endswith(".cpp"))
    database(work, files, ["-std=c++17", f"-I{examples}", f"-I{os.path.join(work, 'include')}"])
    return os.path.join(work, "include", "refcat", "cat.h")


def corpus_generated(work, units):
    shutil.copytree(os.path.join(ROOT, "fixtures", "lint", "include"), os.path.join(work, "include"))
    for h in range(10):
        with open(os.path.join(work, f"gen{h}.h"), "w", encoding="utf-8") as f:
            f.write(GENERATED_HEADER.format(h=h, axis=h % 4))
    files = []
    for u in range(units):
        path = os.path.join(work, f"unit{u}.cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(GENERATED_SOURCE.format(h=u % 10, u=u, axis=u % 4))
        files.append(path)
    database(work, files, ["-std=c++17", f"-I{work}", f"-I{os.path.join(work, 'include')}"])
    return os.path.join(work, "gen3.h")


def report(name, gradlint, work, header, rounds):
    db = work
    total = len(json.load(open(os.path.join(work, "compile_commands.json"))))
    samples = {"uncached": [], "cold": [], "warm": [], "one header changed": []}
    reanalysed = None
    for r in range(rounds):
        cache = os.path.join(work, f"cache-{r}")
        samples["uncached"].append(run(gradlint, db, None)[0])
        seconds, hits = run(gradlint, db, cache)
        assert hits == 0, hits
        samples["cold"].append(seconds)
        seconds, hits = run(gradlint, db, cache)
        assert hits == total, (hits, total)
        samples["warm"].append(seconds)
        with open(header, "a", encoding="utf-8") as f:
            f.write(f"// edit {r}\n")
        seconds, hits = run(gradlint, db, cache)
        samples["one header changed"].append(seconds)
        reanalysed = total - hits
        shutil.rmtree(cache)
    cold = statistics.median(samples["cold"])
    print(f"\n### {name} ({total} translation units; the header edit re-analyses {reanalysed})\n")
    print("| run | median s | min..max s | vs cold |")
    print("|---|---|---|---|")
    for run_name, values in samples.items():
        median = statistics.median(values)
        print(f"| {run_name} | {median:.3f} | {min(values):.3f}..{max(values):.3f} | "
              f"{median / cold:.3f}x |")


def shard_scaling(gradlint, work, counts):
    """Each shard of N run one after another here (in CI: N machines at
    once): the slowest shard is the matrix's wall time; then the merge."""
    db = work
    total = len(json.load(open(os.path.join(work, "compile_commands.json"))))
    print(f"\n### shard scaling: the generated database ({total} translation units), "
          "one shard after another on this machine\n")
    print("| N | slowest shard s | fastest shard s | sum of shards s | merge s | "
          "slowest vs N=1 | files per shard |")
    print("|---|---|---|---|---|---|---|")
    base = None
    for n in counts:
        times, files, reports = [], [], []
        for i in range(1, n + 1):
            report = os.path.join(work, f"shard-{i}-of-{n}.json")
            cmd = [gradlint, "-p", db, f"--shard={i}/{n}", "--format=json", f"--output={report}"]
            start = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):
                sys.exit(f"gradlint failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
            with open(report, encoding="utf-8") as f:
                files.append(len(json.load(f)["run"]["analysed"]))
            reports.append(report)
        start = time.perf_counter()
        merged = subprocess.run([gradlint, "merge", "--format=json", *reports],
                                capture_output=True, text=True, cwd=work)
        merge = time.perf_counter() - start
        if merged.returncode not in (0, 1):
            sys.exit(f"gradlint merge failed:\n{merged.stderr[-2000:]}")
        base = base or max(times)
        print(f"| {n} | {max(times):.3f} | {min(times):.3f} | {sum(times):.3f} | {merge:.3f} | "
              f"{max(times) / base:.2f}x | {'/'.join(map(str, files))} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--only", default="fixtures,refcat,generated,shards",
                        help="corpora to run, comma-separated")
    opts = parser.parse_args()
    gradlint = os.path.join(os.path.abspath(opts.build), "bin", "gradlint")
    print(f"Cache benchmark on {machine()}, {opts.rounds} rounds, `gradlint -p DB` with its "
          "default -j (one worker per core)")
    with tempfile.TemporaryDirectory(prefix="gradlint-cache-bench-") as tmp:
        for key, name, make in (
                ("fixtures", "fixture sources (pullback lint cases and the demo)", corpus_fixtures),
                ("refcat", "refcat dense-block examples", corpus_refcat),
                ("generated", "generated database", lambda w: corpus_generated(w, opts.units))):
            if key not in opts.only.split(","):
                continue
            work = os.path.join(tmp, name.split()[0])
            os.makedirs(work)
            header = make(work)
            report(name, gradlint, work, header, opts.rounds)
        if "shards" in opts.only.split(","):
            work = os.path.join(tmp, "shards")
            os.makedirs(work)
            corpus_generated(work, opts.units)
            shard_scaling(gradlint, work, (1, 2, 4, 8))


if __name__ == "__main__":
    main()
