#!/usr/bin/env python3
"""Analysis speed of gradlint against the parse it runs on.

For each corpus, times (whole process, wall clock) and peak memory of
  (a) clang++-22 -fsyntax-only             the floor: parsing alone
  (b) clang-tidy-22 --load=libgradlint-tidy.so --checks=-*,gradlint-*
  (c) gradlint (all gradlint checks)
  (d) gradlint with one check configured to match nothing (driver overhead)
and, for the fix proof, the same on a file with fixes to prove and on one
without; and the cost of whole-program axis provenance (gradlint -p over a
generated database of --units translation units whose axis parameters are
passed across files, with and without --whole-program).
measured interleaved (a b c d a b c d ...), several rounds, and prints the
median (min..max) and the ratio of medians to (a). A report, not a test.

usage: bench/analysis_bench.py [--build build] [--rounds 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from benchlib import interleaved, machine, print_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "fixtures", "lint", "include")
LLVM_BIN = "/usr/lib/llvm-22/bin"

STD_HEADERS = """algorithm any array atomic bitset chrono complex condition_variable deque
exception filesystem forward_list fstream functional future iomanip ios iostream
istream iterator limits list locale map memory memory_resource mutex numeric
optional ostream queue random ratio regex scoped_allocator set shared_mutex
sstream stack stdexcept streambuf string string_view system_error thread tuple
type_traits typeindex typeinfo unordered_map unordered_set utility valarray
variant vector""".split()


def tools(build, files, flags):
    gradlint = os.path.join(build, "bin", "gradlint")
    plugin = os.path.join(build, "lib", "libgradlint-tidy.so")
    idle = ("--config={CheckOptions: {gradlint-runtime-concat-axis.FunctionNames: ''}}")
    return {
        "clang++ -fsyntax-only": [[f"{LLVM_BIN}/clang++", "-fsyntax-only", *flags, f] for f in files],
        "clang-tidy + plugin": [[f"{LLVM_BIN}/clang-tidy", f"--load={plugin}", "--quiet",
                                 "--checks=-*,gradlint-*", f, "--", *flags] for f in files],
        "gradlint": [[gradlint, "--quiet", f, "--", *flags] for f in files],
        "gradlint, idle matcher": [[gradlint, "--quiet", "--checks=-*,gradlint-runtime-concat-axis",
                                    idle, f, "--", *flags] for f in files],
    }


def run_corpus(name, files, flags, build, rounds):
    commands = tools(build, files, flags)
    times, peaks = interleaved(commands, rounds)
    print(f"\n### {name} ({len(files)} file{'s' if len(files) > 1 else ''})\n")
    print_table("tool", times, peaks, "clang++ -fsyntax-only", "parse")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--functions", type=int, default=3000)
    parser.add_argument("--units", type=int, default=200)
    parser.add_argument("--only", default="fixtures,refcat,proof,large,headers,scaling,wholeprogram",
                        help="comma-separated corpora to run (default: all)")
    opts = parser.parse_args()
    only = set(opts.only.split(","))
    build = os.path.abspath(opts.build)
    print("# gradlint analysis benchmark\n")
    print(f"- machine: {machine()}")
    print(f"- command: bench/analysis_bench.py --rounds {opts.rounds} --functions {opts.functions}"
          + (f" --only {opts.only}" if opts.only != parser.get_default("only") else ""))
    print(f"- rounds: {opts.rounds}, interleaved; times are whole-process wall clock summed over the corpus")
    with tempfile.TemporaryDirectory(prefix="gradlint-bench-") as tmp:
        large = os.path.join(tmp, "large_tu.cpp")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_large_tu.py"), large,
                        "--functions", str(opts.functions)], check=True)
        headers = os.path.join(tmp, "std_headers.cpp")
        with open(headers, "w", encoding="utf-8") as f:
            f.write("".join(f"#include <{h}>\n" for h in STD_HEADERS))
            f.write('#include "tensor.h"\nauto v = mock::cat(mock::Tensor<float, 2>{}, '
                    'mock::Tensor<float, 2>{}, 1);\n')
        fixtures = sorted(
            os.path.join(d, f) for d in [os.path.join(ROOT, "fixtures", "lint", c)
                                         for c in ("gradlint-type-erased-pullback",
                                                   "gradlint-erased-pullback-storage")]
            for f in os.listdir(d) if f.endswith(".cpp")) + [
            os.path.join(ROOT, "fixtures", "demo", "dense_block.cpp")]
        flags = ["-std=c++17", f"-I{INCLUDE}"]
        # C++23: one case uses std::move_only_function.
        fixture_flags = ["-std=c++23", f"-I{INCLUDE}"]
        if "fixtures" in only:
            run_corpus("fixture sources (pullback lint cases and the demo)", fixtures,
                       fixture_flags, build, opts.rounds)
        if "refcat" in only:
            examples = os.path.join(ROOT, "fixtures", "refcat", "examples")
            run_corpus("refcat sources (the dense-block examples, both versions)",
                       [os.path.join(examples, f"dense_block_{v}.cpp") for v in ("erased", "stable")],
                       ["-std=c++17", f"-I{examples}", f"-I{os.path.join(ROOT, 'fixtures', 'refcat', 'include')}"],
                       build, opts.rounds)
        if "proof" in only:
            run_proof(build, opts.rounds)
        if "large" in only:
            run_corpus(f"generated large translation unit ({opts.functions} functions)", [large],
                       flags, build, opts.rounds)
        if "headers" in only:
            run_corpus("header-heavy translation unit (the C++ standard library)", [headers], flags,
                       build, opts.rounds)
        if "scaling" in only:
            run_scaling(fixtures, fixture_flags, build, opts.rounds, tmp)
        if "wholeprogram" in only:
            run_whole_program(build, opts.rounds, opts.units, tmp)


def run_proof(build, rounds):
    """The cost of the fix proof (checks/utils/FixProof.h): the refcat
    dense block before the fix (findings with fixes: one more parse to prove
    them) and after it (findings left, no fix: nothing to prove), each
    against its own parse."""
    examples = os.path.join(ROOT, "fixtures", "refcat", "examples")
    flags = ["-std=c++17", f"-I{examples}", f"-I{os.path.join(ROOT, 'fixtures', 'refcat', 'include')}"]
    for version, what in (("stable", "no fix to prove"), ("erased", "fixes to prove")):
        run_corpus(f"fix proof: dense_block_{version}.cpp ({what})",
                   [os.path.join(examples, f"dense_block_{version}.cpp")], flags, build, rounds)


def run_scaling(files, flags, build, rounds, tmp):
    """gradlint -p DB -j 1 against -j 2 (and -j N for N cores) over a
    compilation database of the given files."""
    database = os.path.join(tmp, "db")
    os.makedirs(database, exist_ok=True)
    with open(os.path.join(database, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{"directory": os.path.dirname(p), "file": p,
                    "arguments": ["clang++", *flags, "-c", p]} for p in files], f)
    gradlint = os.path.join(build, "bin", "gradlint")
    jobs = sorted({1, 2, os.cpu_count() or 1})
    times, peaks = interleaved({f"gradlint -j {j}": [[gradlint, "-p", database, "-j", str(j), "--quiet"]]
                                for j in jobs}, rounds)
    print(f"\n### -j scaling: one `gradlint -p` over a compilation database of {len(files)} files\n")
    print_table("command", times, peaks, "gradlint -j 1", "-j 1")
    base = statistics.median(times["gradlint -j 1"])
    for j in jobs[1:]:
        print(f"\nspeed-up of -j {j} over -j 1 (ratio of medians): "
              f"{base / statistics.median(times[f'gradlint -j {j}']):.2f}x")

WHOLE_PROGRAM_HEADER = """#pragma once
#include "tensor.h"
#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>
using T = mock::Tensor<float, 4>;
{declarations}
"""
WHOLE_PROGRAM_SOURCE = """#include "layers.h"
T layer{u}(const T &x, int axis) {{
  T y = mock::cat(x, x, axis);
  return {previous};
}}
T entry{u}(const T &x) {{ return layer{u}(x, {axis}); }}
"""


def run_whole_program(build, rounds, units, tmp):
    """gradlint -p over a database in which unit u defines layer_u(x, axis)
    (a concatenation on its axis parameter, passed on to layer_{u-1} in
    another file) and calls it with a constant: every finding's notes trace
    calls in other translation units. Default settings, so no signature
    fix (external linkage): this measures the index and its resolution."""
    directory = os.path.join(tmp, "whole-program")
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "layers.h"), "w", encoding="utf-8") as f:
        f.write(WHOLE_PROGRAM_HEADER.format(
            declarations="\n".join(f"T layer{u}(const T &x, int axis);" for u in range(units))))
    files = []
    for u in range(units):
        path = os.path.join(directory, f"unit{u}.cpp")
        previous = f"layer{u - 1}(y, axis)" if u else "y"
        with open(path, "w", encoding="utf-8") as f:
            f.write(WHOLE_PROGRAM_SOURCE.format(u=u, previous=previous, axis=u % 4))
        files.append(path)
    flags = ["-std=c++17", f"-I{INCLUDE}"]
    with open(os.path.join(directory, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump([{"directory": directory, "file": p, "arguments": ["clang++", *flags, "-c", p]}
                   for p in files], f)
    gradlint = os.path.join(build, "bin", "gradlint")
    jobs = str(os.cpu_count() or 1)
    commands = {
        "gradlint -p (whole program)": [[gradlint, "-p", directory, "-j", jobs, "--quiet"]],
        "gradlint -p --whole-program=false": [[gradlint, "-p", directory, "-j", jobs, "--quiet",
                                               "--whole-program=false"]],
    }
    times, peaks = interleaved(commands, rounds)
    print(f"\n### whole-program provenance: a database of {units} translation units, -j {jobs}\n")
    print_table("command", times, peaks, "gradlint -p --whole-program=false", "per file")


if __name__ == "__main__":
    main()
