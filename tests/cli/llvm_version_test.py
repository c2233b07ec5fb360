#!/usr/bin/env python3
"""The LLVM gradlint is built against (22 by default, or 19 with
GRADLINT_LLVM_VERSION=19): --version names it, the plugin loads only into
the clang-tidy of that version, and CUDA sources, which only clang 22 can
parse against the CUDA 13 headers, get a message that says so on 19."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

GRADLINT = os.environ["GRADLINT"]
PLUGIN = os.environ["GRADLINT_PLUGIN"]
CLANG_TIDY = os.environ["GRADLINT_CLANG_TIDY"]
CUDA_RUNTIME = "/usr/local/cuda/include/cuda_runtime.h"

KERNEL = """__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
"""
CUDA_ARGS = ["--", "-x", "cuda", "--cuda-host-only", "--cuda-path=/usr/local/cuda", "-std=c++17"]
HINT = ("whose clang cannot parse the CUDA 13 headers; analyse CUDA sources with a "
        "gradlint built against LLVM 22")


def major(text, pattern):
    m = re.search(pattern, text)
    assert m, (pattern, text)
    return int(m.group(1))


class LlvmVersionTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="gradlint-llvm-version-")
        self.addCleanup(shutil.rmtree, self.work)
        version = subprocess.run([GRADLINT, "--version"], capture_output=True, text=True)
        self.major = major(version.stdout, r"built with LLVM (\d+)\.")

    def test_version_is_the_clang_tidy_one(self):
        tidy = subprocess.run([CLANG_TIDY, "--version"], capture_output=True, text=True)
        self.assertEqual(self.major, major(tidy.stdout, r"LLVM version (\d+)\."))

    # The sanitizer build (scripts/sanitize.sh) has no plugin.
    @unittest.skipUnless(os.path.exists(PLUGIN), "no plugin in this build")
    def test_plugin_loads_into_its_clang_tidy_only(self):
        source = os.path.join(self.work, "a.cpp")
        with open(source, "w", encoding="utf-8") as f:
            f.write("int main() {}\n")
        ok = subprocess.run([CLANG_TIDY, f"--load={PLUGIN}", "--checks=-*,gradlint-*",
                             "--list-checks"], capture_output=True, text=True)
        self.assertEqual(ok.returncode, 0, ok.stderr)
        self.assertIn("gradlint-runtime-concat-axis", ok.stdout)
        others = [v for v in (14, 19, 22) if v != self.major and shutil.which(f"clang-tidy-{v}")]
        if not others:
            self.skipTest("no clang-tidy of another version installed")
        wrong = subprocess.run([f"clang-tidy-{others[0]}", f"--load={PLUGIN}", "--list-checks"],
                               capture_output=True, text=True)
        self.assertEqual(wrong.returncode, 3)
        self.assertIn(f"Use clang-tidy-{self.major}", wrong.stderr)

    @unittest.skipUnless(os.path.exists(CUDA_RUNTIME), "no CUDA toolkit in /usr/local/cuda")
    def test_cuda_sources(self):
        kernel = os.path.join(self.work, "k.cu")
        with open(kernel, "w", encoding="utf-8") as f:
            f.write(KERNEL)
        proc = subprocess.run([GRADLINT, kernel, *CUDA_ARGS], capture_output=True, text=True)
        if self.major >= 22:
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertNotIn(HINT, proc.stderr)
        else:
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            self.assertIn(f"this gradlint is built against LLVM {self.major}, " + HINT,
                          proc.stderr)
            # A C++ file in the same run does not need the message.
            cpp = os.path.join(self.work, "a.cpp")
            with open(cpp, "w", encoding="utf-8") as f:
                f.write("int broken(\n")
            proc = subprocess.run([GRADLINT, cpp, "--", "-std=c++17"],
                                  capture_output=True, text=True)
            self.assertEqual(proc.returncode, 2)
            self.assertNotIn(HINT, proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
