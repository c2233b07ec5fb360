#!/usr/bin/env python3
"""Findings in headers: the gradlint command, the plugin in the stock
clang-tidy-22 and gradlint-clangd report the same ones, under the default
configuration (clang-tidy 22's HeaderFilterRegex '.*': every header except
system headers) and under a .clang-tidy that narrows the header filter.

The project: two sources that share the project's own header (a finding
there), a third-party header outside the source root reached by -I (a
finding), and a system header reached by -isystem (a finding no front end
reports). clangd analyses the open file only: its findings for each source
must be the command's in that source, and opening the project's header must
show the command's findings in it. Then: --fix still refuses to edit the
third-party header, fixes the shared header once, and a baseline written
with header findings suppresses them all."""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lint"))
from lsp_client import LspClient  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli"))
from scratch import ScratchDirTest  # noqa: E402

GRADLINT = os.environ["GRADLINT"]
CLANG_TIDY = os.environ["GRADLINT_CLANG_TIDY"]
PLUGIN = os.environ["GRADLINT_PLUGIN"]
CLANGD = os.environ["GRADLINT_CLANGD"]
CLANG = os.environ["GRADLINT_CLANG"]

TENSOR_H = """#pragma once
namespace proj {
template <int R> struct Tensor {
  int v;
};
template <int R> Tensor<R> cat(const Tensor<R> &a, const Tensor<R> &, int axis) {
  return {a.v + axis};
}
template <int A, int R> Tensor<R> cat(const Tensor<R> &a, const Tensor<R> &) {
  return {a.v + A};
}
} // namespace proj
"""
LAYERS_H = """#pragma once
#include "proj/tensor.h"
namespace proj {
inline Tensor<2> widen(const Tensor<2> &x) { return cat(x, x, 1); }
} // namespace proj
"""
VENDOR_H = """#pragma once
#include "proj/tensor.h"
namespace vendor {
inline proj::Tensor<2> stack2(const proj::Tensor<2> &x) { return proj::cat(x, x, 0); }
} // namespace vendor
"""
SYSTEM_H = """#pragma once
#include "proj/tensor.h"
namespace sys {
inline proj::Tensor<2> tall(const proj::Tensor<2> &x) { return proj::cat(x, x, 0); }
} // namespace sys
"""
A_CPP = """#include "proj/layers.h"
#include "vendor/blocks.h"
#include <sys/blocks.h>
int a_main(proj::Tensor<2> x) {
  return proj::cat(x, x, 0).v + proj::widen(x).v + vendor::stack2(x).v + sys::tall(x).v;
}
"""
B_CPP = """#include "proj/layers.h"
#include "vendor/blocks.h"
int b_main(proj::Tensor<2> x) { return proj::cat(x, x, 1).v + proj::widen(x).v + vendor::stack2(x).v; }
"""
FLAGS = ["-std=c++17", "-Iinclude", "-I../third_party", "-isystem", "../sysroot"]
DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): warning: (?P<msg>.*) "
                  r"\[(?P<check>gradlint-[a-z-]+)\]$")


class HeaderParityTest(ScratchDirTest):
    prefix = "gradlint-headers-"

    def setUp(self):
        super().setUp()
        self.write("proj/include/proj/tensor.h", TENSOR_H)
        self.write("proj/include/proj/layers.h", LAYERS_H)
        self.write("third_party/vendor/blocks.h", VENDOR_H)
        self.write("sysroot/sys/blocks.h", SYSTEM_H)
        self.write("proj/src/a.cpp", A_CPP)
        self.write("proj/src/b.cpp", B_CPP)
        self.proj = os.path.join(self.dir, "proj")
        self.write("proj/build/compile_commands.json", json.dumps([
            {"directory": self.proj, "file": f"src/{name}",
             "arguments": ["clang++", *FLAGS, "-c", f"src/{name}"]} for name in ("a.cpp", "b.cpp")]))
        self.write("proj/.clangd", "Diagnostics:\n  ClangTidy:\n    Add: [gradlint-*]\n"
                   "    FastCheckFilter: Loose\n")

    def path(self, name):
        return os.path.realpath(os.path.join(self.dir, name))

    def narrow(self):
        self.write("proj/.clang-tidy", "Checks: '-*,gradlint-*'\n"
                   "HeaderFilterRegex: 'include/proj/'\n")

    def command_findings(self, *extra):
        r = subprocess.run([GRADLINT, "-p", "build", "--format=json", *extra], cwd=self.proj,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return {(os.path.realpath(f["file"]), f["line"], f["column"], f["check"], f["message"])
                for f in json.loads(r.stdout)["findings"]}

    def plugin_findings(self):
        found = set()
        for name in ("a.cpp", "b.cpp"):
            r = subprocess.run([CLANG_TIDY, f"--load={PLUGIN}", "--checks=-*,gradlint-*",
                                "-p", "build", f"src/{name}"], cwd=self.proj,
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            for line in r.stdout.splitlines():
                m = DIAG.match(line)
                if m:
                    found.add((os.path.realpath(os.path.join(self.proj, m["file"])),
                               int(m["line"]), int(m["col"]),
                               m["check"], m["msg"]))
        return found

    def clangd_findings(self, names):
        found = set()
        client = LspClient([CLANGD, "--log=error", "--background-index=false",
                            "--compile-commands-dir=build"], self.proj)
        try:
            for name in names:
                path = self.path(name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                uri = client.open(path, text)
                for d in client.wait_for_diagnostics(uri):
                    if d.get("source") != "clang-tidy" or not d["code"].startswith("gradlint-"):
                        continue
                    start = d["range"]["start"]
                    message = d["message"].removesuffix(" (fix available)")
                    found.add((path, start["line"] + 1, start["character"] + 1, d["code"],
                               message[:1].lower() + message[1:]))
        finally:
            client.close()
        return found

    def in_files(self, findings, *names):
        paths = {self.path(n) for n in names}
        return {f for f in findings if f[0] in paths}

    def assertParity(self, expected_files):
        command = self.command_findings()
        self.assertEqual({f[0] for f in command}, {self.path(n) for n in expected_files})
        self.assertEqual(self.plugin_findings(), command)
        sources = ("proj/src/a.cpp", "proj/src/b.cpp")
        self.assertEqual(self.clangd_findings(sources), self.in_files(command, *sources))
        header = "proj/include/proj/layers.h"
        self.assertEqual(self.clangd_findings([header]), self.in_files(command, header))
        return command

    def test_default_reports_own_and_third_party_headers_not_system_ones(self):
        command = self.assertParity(["proj/src/a.cpp", "proj/src/b.cpp",
                                     "proj/include/proj/layers.h", "third_party/vendor/blocks.h"])
        # The shared headers' findings once each, though both sources reach them.
        self.assertEqual(len(self.in_files(command, "proj/include/proj/layers.h")), 1)
        self.assertEqual(len(self.in_files(command, "third_party/vendor/blocks.h")), 1)

    def test_a_narrower_header_filter_in_clang_tidy_file_is_obeyed(self):
        self.narrow()
        self.assertParity(["proj/src/a.cpp", "proj/src/b.cpp", "proj/include/proj/layers.h"])
        # The command line still overrides the file.
        widened = self.command_findings("--header-filter=.*")
        self.assertIn(self.path("third_party/vendor/blocks.h"), {f[0] for f in widened})

    def test_fix_edits_own_headers_once_and_refuses_third_party_ones(self):
        r = subprocess.run([GRADLINT, "-p", "build", "--fix", "--quiet"], cwd=self.proj,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(f"not fixing '{self.path('third_party/vendor/blocks.h')}'", r.stderr)
        self.assertEqual(self.read("third_party/vendor/blocks.h"), VENDOR_H)
        self.assertEqual(self.read("proj/include/proj/layers.h"),
                         LAYERS_H.replace("cat(x, x, 1)", "cat<1>(x, x)"))
        self.assertEqual(self.read("proj/src/a.cpp"),
                         A_CPP.replace("proj::cat(x, x, 0)", "proj::cat<0>(x, x)"))
        for name in ("a.cpp", "b.cpp"):
            c = subprocess.run([CLANG, "-fsyntax-only", *FLAGS, f"src/{name}"], cwd=self.proj,
                               capture_output=True, text=True)
            self.assertEqual(c.returncode, 0, c.stderr)

    def test_a_baseline_covers_header_findings(self):
        r = subprocess.run([GRADLINT, "-p", "build", "--write-baseline=base.json", "--quiet"],
                           cwd=self.proj, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.proj, "base.json"), encoding="utf-8") as f:
            files = {e["file"] for e in json.load(f)["findings"]}
        self.assertIn("include/proj/layers.h", files)
        self.assertEqual(self.command_findings("--baseline=base.json"), set())


if __name__ == "__main__":
    unittest.main(verbosity=2)
