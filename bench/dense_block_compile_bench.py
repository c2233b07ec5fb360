#!/usr/bin/env python3
"""Compile time of the three versions of the refcat dense-block example.

The erased program (fixtures/refcat/examples/dense_block_erased.cpp), what
`gradlint --fix` makes of it (made here, in a temporary directory, by the
gradlint of the build), and the hand-written stable program: each compiled to
an object file with clang++-22 at -O0 and at -O2, interleaved (erased, fixed,
stable, erased, ...), several rounds. Prints the median (min..max) wall time,
the peak memory, and the ratio of medians to the erased program. In Julia the
type-stable `cat` made some models (DenseNet) slower to compile; this is the
C++ figure for the same trade. A report, not a test.

usage: bench/dense_block_compile_bench.py [--build build] [--rounds 5]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import interleaved, machine, print_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "fixtures", "refcat", "examples")
INCLUDES = [f"-I{EXAMPLES}", f"-I{os.path.join(ROOT, 'fixtures', 'refcat', 'include')}"]
CLANGXX = shutil.which("clang++-22") or "/usr/lib/llvm-22/bin/clang++"


def fixed_copy(build, tmp):
    """dense_block_erased.cpp after `gradlint --fix`, in tmp."""
    fixed = os.path.join(tmp, "dense_block_erased.cpp")
    shutil.copy(os.path.join(EXAMPLES, "dense_block_erased.cpp"), fixed)
    proc = subprocess.run([os.path.join(build, "bin", "gradlint"), "--quiet", "--fix", fixed, "--",
                           "-std=c++17", *INCLUDES], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"gradlint --fix failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return fixed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--rounds", type=int, default=5)
    opts = parser.parse_args()
    build = os.path.abspath(opts.build)
    with tempfile.TemporaryDirectory(prefix="gradlint-compile-") as tmp:
        versions = {
            "erased": os.path.join(EXAMPLES, "dense_block_erased.cpp"),
            "gradlint-fixed": fixed_copy(build, tmp),
            "stable": os.path.join(EXAMPLES, "dense_block_stable.cpp"),
        }
        version = subprocess.run([CLANGXX, "--version"], capture_output=True, text=True).stdout
        print("# dense-block example: compile time of each version\n")
        print(f"- machine: {machine()}")
        print(f"- compiler: {version.splitlines()[0]}")
        print(f"- command: bench/dense_block_compile_bench.py --rounds {opts.rounds}")
        print(f"- {opts.rounds} rounds, interleaved; `clang++-22 -std=c++17 -c` to an object file, "
              "whole-process wall clock")
        for level in ("-O0", "-O2"):
            obj = os.path.join(tmp, "out.o")
            times, peaks = interleaved(
                {name: [[CLANGXX, "-std=c++17", level, *INCLUDES, "-c", source, "-o", obj]]
                 for name, source in versions.items()}, opts.rounds)
            print(f"\n### {level}\n")
            print_table("version", times, peaks, "erased", "erased", digits=2)


if __name__ == "__main__":
    main()
