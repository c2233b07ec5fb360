#!/usr/bin/env python3
"""A real editor: headless Neovim's built-in LSP client with gradlint-clangd
shows the gradlint diagnostic and applies its quick fix to the buffer."""

import os
import shutil
import subprocess
import tempfile
import unittest

CLANGD = os.environ["GRADLINT_CLANGD"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]
NVIM = shutil.which("nvim")

SOURCE = """#include "tensor.h"
using namespace mock;
Tensor<float, 4> join(const Tensor<float, 4> &x) {
  return cat(x, x, 3);
}
"""


class NeovimTest(unittest.TestCase):
    @unittest.skipIf(NVIM is None, "nvim is not installed (scripts/bootstrap.sh installs Debian's neovim)")
    def test_diagnostic_appears_and_quick_fix_edits_the_buffer(self):
        work = tempfile.mkdtemp(prefix="gradlint-nvim-")
        self.addCleanup(shutil.rmtree, work)
        path = os.path.join(work, "join.cpp")
        with open(path, "w", encoding="utf-8") as f:
            f.write(SOURCE)
        with open(os.path.join(work, "compile_flags.txt"), "w", encoding="utf-8") as f:
            f.write(f"-std=c++17\n-I{INCLUDE}\n")
        # No .clangd or .clang-tidy: pointing the editor at gradlint-clangd
        # is the whole set-up.
        env = dict(os.environ, GRADLINT_NVIM_FILE=path, GRADLINT_CLANGD=CLANGD,
                   GRADLINT_NVIM_EXPECTED="  return cat<3>(x, x);", HOME=work)
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "neovim_lsp.lua")
        proc = subprocess.run([NVIM, "--headless", "--clean", "-c", f"luafile {script}"],
                              env=env, capture_output=True, text=True, timeout=180, cwd=work)
        output = proc.stdout + proc.stderr
        self.assertEqual(proc.returncode, 0, output)
        self.assertIn("diagnostic: Constant axis 3 passed to 'mock::cat'", output)  # clangd capitalises
        self.assertIn("fixed:   return cat<3>(x, x);", output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
