#!/usr/bin/env python3
"""gradlint against awkward input: what --fix may and may not edit
(read-only files, files outside the project, file permissions), overlapping
fixes from two checks, a shared header whose fix depends on the including file, CRLF line ends, a UTF-8 byte order mark, non-ASCII
identifiers, an unreadable file and inputs that are not source files. Every fixed file is compiled."""

import json
import os
import stat
import subprocess
import unittest

from scratch import ScratchDirTest

GRADLINT = os.environ["GRADLINT"]
INCLUDE = os.environ["GRADLINT_LINT_INCLUDE"]
CLANG = os.environ.get("GRADLINT_CLANG", "clang++-22")
FLAGS = ["-std=c++17", f"-I{INCLUDE}"]

SOURCE = """#include "tensor.h"
using namespace mock;
Tensor<float, 4> f(const Tensor<float, 4> &x) { return cat(x, x, 3); }
"""
FIXED = SOURCE.replace("cat(x, x, 3)", "cat<3>(x, x)")


class RobustnessTest(ScratchDirTest):
    prefix = "gradlint-robust-"

    def gradlint(self, *args, cwd=None):
        return subprocess.run([GRADLINT, *args, "--", *FLAGS], cwd=cwd or self.dir,
                              capture_output=True, text=True)

    def read_bytes(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read()

    def write_bytes(self, name, data):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def assertCompiles(self, path, *extra):
        r = subprocess.run([CLANG, "-fsyntax-only", *FLAGS, *extra, path], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    # --- what --fix edits ----------------------------------------------------

    def test_read_only_file_is_not_fixed_and_the_others_are(self):
        a = self.write("a.cpp", SOURCE)
        self.write("b.cpp", SOURCE)
        os.chmod(a, 0o444)
        r = self.gradlint("--fix", "a.cpp", "b.cpp")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(f"not fixing '{a}': it is read-only", r.stderr)
        self.assertEqual(self.read("a.cpp"), SOURCE)
        self.assertEqual(stat.S_IMODE(os.stat(a).st_mode), 0o444)
        self.assertEqual(self.read("b.cpp"), FIXED)
        self.assertEqual(r.stdout.count("warning:"), 2)  # both still reported

    def test_fix_keeps_the_permissions_of_the_file(self):
        for mode in (0o755, 0o640, 0o664):
            path = self.write(f"m{mode:o}.cpp", SOURCE)
            os.chmod(path, mode)
            r = self.gradlint("--fix", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.read(f"m{mode:o}.cpp"), FIXED)
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), mode)

    def test_header_outside_the_project_is_not_fixed(self):
        # project/ is a git work tree (the source root); vendor/ is not in it.
        header = self.write("vendor/inc/vendor.h", '#include "tensor.h"\n'
                            "inline mock::Tensor<float, 4> v(const mock::Tensor<float, 4> &x) "
                            "{ return mock::cat(x, x, 3); }\n")
        main = self.write("project/src/a.cpp", '#include "vendor.h"\n' + SOURCE)
        os.makedirs(os.path.join(self.dir, "project", ".git"))
        r = subprocess.run([GRADLINT, "--fix", "--header-filter=.*", main, "--", *FLAGS,
                            f"-I{self.dir}/vendor/inc"], cwd=os.path.join(self.dir, "project"),
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn(f"not fixing '{header}': it is outside the source root and the "
                      "directories of the analysed files", r.stderr)
        self.assertIn("cat(x, x, 3)", self.read("vendor/inc/vendor.h"))
        self.assertEqual(self.read("project/src/a.cpp"), '#include "vendor.h"\n' + FIXED)

    def test_header_next_to_the_analysed_file_is_fixed(self):
        self.write("src/shared.h", '#include "tensor.h"\n'
                   "inline mock::Tensor<float, 4> s(const mock::Tensor<float, 4> &x) "
                   "{ return mock::cat(x, x, 3); }\n")
        main = self.write("src/a.cpp", '#include "shared.h"\n' + SOURCE)
        # Run from elsewhere: the analysed file's directory is still allowed.
        os.makedirs(os.path.join(self.dir, "elsewhere"))
        r = self.gradlint("--fix", "--header-filter=.*", main,
                          cwd=os.path.join(self.dir, "elsewhere"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("mock::cat<3>(x, x)", self.read("src/shared.h"))
        self.assertCompiles(main)

    def test_overlapping_fixes_from_two_checks(self):
        # The compiler's typo correction (clang-diagnostic-error) replaces
        # 'kChanel'; runtime-concat-axis moves the same token into <...>.
        # With --fix-errors one fix is applied, the other is reported as not
        # applied -- no half-applied mix -- and the next run applies it.
        src = SOURCE.replace("using namespace mock;\n",
                             "using namespace mock;\nconstexpr int kChannel = 1;\n")
        src = src.replace("cat(x, x, 3)", "cat(x, x, kChanel)")
        self.write("typo.cpp", src)
        r = self.gradlint("--fix-errors", "typo.cpp")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("did you mean 'kChannel'?", r.stdout)
        self.assertIn("note: this fix will not be applied because it overlaps with another fix",
                      r.stdout)
        self.assertEqual(self.read("typo.cpp"), src.replace("cat(x, x, kChanel)",
                                                            "cat<kChanel>(x, x)"))
        r = self.gradlint("--fix-errors", "typo.cpp")
        self.assertEqual(self.read("typo.cpp"), src.replace("cat(x, x, kChanel)",
                                                            "cat<kChannel>(x, x)"))
        self.assertCompiles(os.path.join(self.dir, "typo.cpp"))
        r = self.gradlint("--fix", "typo.cpp")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)

    # A header whose pullback returns `T`, which a.cpp and b.cpp each define
    # (\p a and \p b: their text before and after `#include "p.h"`); both
    # files in a compilation database, gradlint --fix over both. Returns the
    # header's text and gradlint's result.
    def fix_shared_header(self, a, b):
        header = ('#include "tensor.h"\n#include <any>\n'
                  "inline std::any p_pullback(const T &dy) { return std::any(dy); }\n")
        self.write("src/p.h", header)
        self.write("src/a.cpp", a[0] + '#include "p.h"\n' + a[1])
        self.write("src/b.cpp", b[0] + '#include "p.h"\n' + b[1])
        self.write("build/compile_commands.json", json.dumps([
            {"directory": self.dir + "/src", "file": f,
             "command": f"clang++ -std=c++17 -I{INCLUDE} -include tensor.h -c {f}"}
            for f in ("a.cpp", "b.cpp")]))
        r = subprocess.run([GRADLINT, "-p", "build", "--header-filter=.*", "--fix", "-j", "2"],
                           cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return header, r

    def test_shared_header_fixed_once_through_an_alias_each_file_defines(self):
        # The same header with T an alias each file declares: the fix spells
        # the result type as the code does, `T`, which is the concrete type in
        # both files; both translation units agree, and the fixed files build.
        header, r = self.fix_shared_header(
            ("using T = mock::Tensor<float, 4>;\n", "void run_a(const T &x) { p_pullback(x); }\n"),
            ('#include "tensor.h"\nusing T = mock::Tensor<double, 2>;\n',
             "void run_b(const T &x) { p_pullback(x); }\n"))
        self.assertEqual(self.read("src/p.h"), header.replace(
            "inline std::any p_pullback(const T &dy) { return std::any(dy); }",
            "inline T p_pullback(const T &dy) { return dy; }"))
        for f in ("a.cpp", "b.cpp"):
            self.assertCompiles(os.path.join(self.dir, "src", f),
                                "-include", os.path.join(INCLUDE, "tensor.h"))

    def test_shared_header_with_fixes_that_differ_between_translation_units(self):
        # The header's pullback returns T, a macro each file defines
        # differently: the type-erased check's fix (the concrete return type)
        # differs by file, so applying either would break the other file.
        # Neither is.
        header, r = self.fix_shared_header(
            ("#define T mock::Tensor<float, 4>\n", ""),
            ('#include "tensor.h"\n#define T mock::Tensor<double, 2>\n', ""))
        self.assertEqual(r.stdout.count("warning: pullback 'p_pullback' returns type-erased"), 1)
        self.assertIn("note: not fixed: the translation units that include this file need "
                      "different fixes here", r.stdout)
        self.assertEqual(self.read("src/p.h"), header)
        # With one file, its fix is applied.
        r = subprocess.run([GRADLINT, "-p", "../build", "--header-filter=.*", "--fix", "a.cpp"],
                           cwd=self.dir + "/src", capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("inline mock::Tensor<float, 4> p_pullback", self.read("src/p.h"))

    # --- encodings and line ends ---------------------------------------------

    def test_crlf_line_ends_are_kept(self):
        self.write_bytes("crlf.cpp", SOURCE.replace("\n", "\r\n").encode())
        r = self.gradlint("crlf.cpp")
        self.assertIn("crlf.cpp:3:66: warning: constant axis 3", r.stdout)
        r = self.gradlint("--fix", "crlf.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read_bytes("crlf.cpp"), FIXED.replace("\n", "\r\n").encode())
        self.assertCompiles(os.path.join(self.dir, "crlf.cpp"))

    def test_byte_order_mark_is_kept(self):
        bom = b"\xef\xbb\xbf"
        self.write_bytes("bom.cpp", bom + SOURCE.encode())
        r = self.gradlint("--format=sarif", "bom.cpp")
        region = json.loads(r.stdout)["runs"][0]["results"][0]["locations"][0][
            "physicalLocation"]["region"]
        self.assertEqual((region["startLine"], region["startColumn"]), (3, 66))
        r = self.gradlint("--fix", "bom.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read_bytes("bom.cpp"), bom + FIXED.encode())
        self.assertCompiles(os.path.join(self.dir, "bom.cpp"))

    def test_non_ascii_identifiers(self):
        src = SOURCE.replace(" f(", " größe_λ(").replace("&x) { return cat(x, x, 3)",
                                                        "&χ) { return cat(χ, χ, 3)")
        self.write("utf8.cpp", src)
        r = self.gradlint("--format=json", "utf8.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        finding, = json.loads(r.stdout)["findings"]
        self.assertEqual(finding["context"], "größe_λ")
        line = src.splitlines()[2]
        self.assertEqual(finding["column"], len(line[:line.index("3)")].encode()) + 1)
        r = self.gradlint("--fix", "utf8.cpp")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("utf8.cpp"), src.replace("cat(χ, χ, 3)", "cat<3>(χ, χ)"))
        self.assertCompiles(os.path.join(self.dir, "utf8.cpp"))

    # --- inputs that are not source files --------------------------------------

    def test_directory_as_input(self):
        os.makedirs(os.path.join(self.dir, "adir.cpp"))
        r = self.gradlint("adir.cpp")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("adir.cpp", r.stdout + r.stderr)

    def test_unreadable_file(self):
        path = self.write("secret.cpp", SOURCE)
        os.chmod(path, 0)
        cmd = [GRADLINT, "--fix", path, "--", *FLAGS]
        if os.geteuid() == 0:
            # Root reads anything: run as nobody, who must reach the binary,
            # the headers and the scratch directory.
            os.chmod(self.dir, 0o755)
            drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            probe = subprocess.run(drop + ["sh", "-c", f'test -x "{GRADLINT}" && test -r "{INCLUDE}/tensor.h"'],
                                   capture_output=True)
            if probe.returncode != 0:
                self.skipTest("running as root, and user nobody cannot run gradlint from here")
            cmd = drop + cmd
        r = subprocess.run(cmd, cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(f"error reading '{path}'", r.stdout + r.stderr)
        os.chmod(path, 0o644)
        self.assertEqual(self.read("secret.cpp"), SOURCE)

    def test_binary_garbage_as_input(self):
        self.write_bytes("junk.cpp", bytes(range(256)) * 8)
        r = self.gradlint("--fix", "junk.cpp")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(self.read_bytes("junk.cpp"), bytes(range(256)) * 8)


if __name__ == "__main__":
    unittest.main(verbosity=2)
