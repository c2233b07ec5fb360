#!/usr/bin/env python3
"""The host tests of refcat's CUDA logic must fail when that logic is wrong.

Builds tests/refcat/cuda_launch_test.cpp against copies of refcat's headers
in which refcat/cuda_launch.h carries one deliberate bug each (a wrong
offset, rows mistaken for chunks, a late switch to 64-bit indices, a stride
of one block, a grid cap that ignores the inputs, launches that drop an
input, 16-byte units on misaligned pointers, a split that copies the wrong
way),
and checks that the named tests fail. A control build of the unchanged
header must pass first, so a build that fails for another reason cannot
pass for a caught bug.

Environment: CXX (a C++20 compiler), GTEST_LIBS (the gtest and
gtest_main libraries), REFCAT_DIR (fixtures/refcat).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_SOURCE = os.path.join(HERE, "cuda_launch_test.cpp")

# name, text in cuda_launch.h, its replacement, tests that must fail.
MUTATIONS = [
    ("offset of the previous input",
     "offset = static_cast<I>(m.offset[input]);",
     "offset = static_cast<I>(m.offset[input > 0 ? input - 1 : 0]);",
     ["EveryRankAxisAndDtypeMatchesCpu", "PastThirtyTwoBitIndicesEveryUnitOnce"]),
    ("offset one unit too far for input 1",
     "const I w = o * row + offset + c;",
     "const I w = o * row + offset + c + (input == 1);",
     ["EveryRankAxisAndDtypeMatchesCpu", "OddSizesAndMisalignedPointersForceEachWidth"]),
    ("rows where chunks belong",
     "const I o = u / inner, c = u - o * inner;",
     "const I o = u / row, c = u - o * row;",
     ["EveryRankAxisAndDtypeMatchesCpu", "UpToHundredThirtyInputsSplitIntoLaunchesOfSixtyFour"]),
    ("64-bit indices only past 2^40 units",
     "kIndex32Limit = 1ull << 31;",
     "kIndex32Limit = 1ull << 40;",
     ["PastFourBillionUnitsSampledThreadsAddressCorrectly", "IndexWidthSwitchesAtTwoToTheThirtyOne"]),
    ("a grid-stride loop that strides by one block",
     "const I stride = static_cast<I>(grid) * block_dim;",
     "const I stride = block_dim;",
     ["EveryRankAxisAndDtypeMatchesCpu", "OddSizesAndMisalignedPointersForceEachWidth"]),
    ("a grid cap that ignores how many inputs share it",
     "std::max(1, sm_count * kBlocksPerSm / inputs)",
     "std::max(1, sm_count * kBlocksPerSm)",
     ["GridBlocksAreCappedPerSmAndCoverSmallCopies"]),
    ("launches of 63 inputs that step by 64",
     "std::min<std::size_t>(kMaxLaunchInputs, plan.inputs() - first)",
     "std::min<std::size_t>(kMaxLaunchInputs - 1, plan.inputs() - first)",
     ["UpToHundredThirtyInputsSplitIntoLaunchesOfSixtyFour"]),
    ("16-byte units on 8-byte aligned pointers",
     "for (int w : {16, 8, 4, 2}) {",
     "for (int w : {16, 8, 4, 2}) { if (w == 16 && plan.row_bytes % 16 == 0) return 16;",
     ["OddSizesAndMisalignedPointersForceEachWidth"]),
    ("split that writes the whole",
     "      part[u] = whole[w];",
     "      whole[w] = part[u];",
     ["EveryRankAxisAndDtypeMatchesCpu"]),
]


def build(workdir, name, header_text):
    include = os.path.join(workdir, name, "include")
    shutil.copytree(os.path.join(os.environ["REFCAT_DIR"], "include"), include)
    with open(os.path.join(include, "refcat", "cuda_launch.h"), "w") as f:
        f.write(header_text)
    exe = os.path.join(workdir, name, "cuda-launch-test")
    cmd = [os.environ["CXX"], "-std=c++20", "-O2", "-I", include, TEST_SOURCE, "-o", exe,
           *os.environ["GTEST_LIBS"].split(os.pathsep), "-pthread"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {name}: the test does not build:\n{r.stderr[-3000:]}")
    return exe


def failing_tests(exe, tests):
    flt = ":".join("CudaLaunch." + t for t in tests)
    r = subprocess.run([exe, "--gtest_filter=" + flt, "--gtest_brief=1"],
                       capture_output=True, text=True, timeout=600)
    failed = set(re.findall(r"^\[  FAILED  \] CudaLaunch\.(\w+)", r.stdout, re.M))
    return r.returncode, failed, r.stdout


def main():
    with open(os.path.join(os.environ["REFCAT_DIR"], "include", "refcat", "cuda_launch.h")) as f:
        original = f.read()
    all_tests = sorted({t for *_, tests in MUTATIONS for t in tests})
    with tempfile.TemporaryDirectory(prefix="refcat-mutations-") as workdir:
        exe = build(workdir, "control", original)
        rc, failed, out = failing_tests(exe, all_tests)
        if rc != 0 or failed:
            sys.exit(f"FAIL: the unchanged header fails {sorted(failed)}:\n{out[-3000:]}")
        print(f"ok: control passes {len(all_tests)} tests")
        problems = []
        for i, (name, old, new, tests) in enumerate(MUTATIONS):
            if original.count(old) != 1:
                problems.append(f"{name}: the text to mutate occurs {original.count(old)} times "
                                f"in cuda_launch.h: {old!r}")
                continue
            exe = build(workdir, f"mutant{i}", original.replace(old, new))
            rc, failed, out = failing_tests(exe, tests)
            missed = [t for t in tests if t not in failed]
            if rc == 0 or missed:
                problems.append(f"{name}: not caught by {missed}\n{out[-2000:]}")
            else:
                print(f"ok: {name}: caught by {', '.join(sorted(failed))}")
        if problems:
            sys.exit("FAIL:\n" + "\n".join(problems))


if __name__ == "__main__":
    main()
