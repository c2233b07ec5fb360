#!/usr/bin/env python3
"""Whole-program axis provenance on a project of several translation units
(fixtures/refcat/examples/layered): the concatenation's axis is a parameter
of grow() (grow.cpp), passed on by block_forward() (block.cpp), which main()
(main.cpp) calls with a constant. Run over the compilation database,
gradlint traces the axis to that constant across the files and, with
RewriteSignatures: all, makes it a template parameter everywhere in one fix:
through --fix and through --export-fixes + clang-apply-replacements, with
-j and with the cache. The fixed project builds and prints the same values.
A whole-program fix the compiler rejects is withdrawn, with the reason; so
is one under which a call it leaves as written in a function it makes a
template would reach another function (an overload declared later).
A pullback's type erasure is traced into the files that make it."""

import functools
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

GRADLINT = os.environ["GRADLINT"]
CLANGXX = os.environ["GRADLINT_CLANGXX"]
APPLY = os.environ["GRADLINT_APPLY_REPLACEMENTS"]
REFCAT = os.environ["REFCAT_DIR"]
LINT_INCLUDE = os.environ["LINT_INCLUDE"]
LAYERED = os.path.join(REFCAT, "examples", "layered")
EXPECTED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "whole_program_expected")
SOURCES = ["grow.cpp", "block.cpp", "main.cpp"]
EDITED = ["layers.h"] + SOURCES
FLAGS = ["-std=c++17", f"-I{os.path.join(REFCAT, 'include')}", f"-I{os.path.join(REFCAT, 'examples')}"]

# The finding, with file names relative to the project.
FINDING = [
    "grow.cpp:7:22: warning: axis passed to 'refcat::cat' comes from parameter 'axis', so the rank of the result is only known at run time [gradlint-runtime-concat-axis]",
    "block.cpp:8:75: note: 'grow' is called here with parameter 'axis' of 'block_forward'",
    "main.cpp:11:64: note: 'block_forward' is called here with axis 3",
]
FIXABLE = FINDING + [
    "grow.cpp:6:50: note: every call passes a constant: the fix makes 'axis' a template parameter of 'grow' and of the functions that pass it on and calls the compile-time form",
    "cat.h:102:30: note: compile-time form declared here",
]
NOT_ALLOWED = FINDING + [
    "grow.cpp:6:50: note: every call passes a constant: make 'axis' a template parameter of 'grow' and call the compile-time form",
    "grow.cpp:6:50: note: no fix: 'grow' has external linkage; set RewriteSignatures to 'all' to change it with every caller in the compilation database",
    "cat.h:102:30: note: compile-time form declared here",
]
LINE = re.compile(r"^(/\S+?):(\d+):(\d+): (warning|error|note): (.*)$")


def diagnostics(output):
    """The warnings and notes, each file named by its base name; the
    FIX-IT lines of --fix left out."""
    result = []
    for line in output.splitlines():
        m = LINE.match(line)
        if m and "FIX-IT applied" not in m.group(5):
            result.append(f"{os.path.basename(m.group(1))}:{m.group(2)}:{m.group(3)}: {m.group(4)}: {m.group(5)}")
    return result


def write_database(directory, sources, flags):
    entries = [{"directory": directory, "file": os.path.join(directory, s),
                "arguments": ["clang++"] + flags + ["-c", os.path.join(directory, s)]}
               for s in sources]
    with open(os.path.join(directory, "compile_commands.json"), "w") as f:
        json.dump(entries, f)


class WholeProgramTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gradlint-whole-program-")
        self.dir = os.path.join(self.tmp, "layered")
        shutil.copytree(LAYERED, self.dir)
        write_database(self.dir, SOURCES, FLAGS)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def gradlint(self, *args, cwd=None):
        proc = subprocess.run([GRADLINT, "-p", self.dir, *args], cwd=cwd or self.dir,
                              capture_output=True, text=True)
        self.assertNotIn(proc.returncode, (2, 3, 4, 5), proc.stdout + proc.stderr)
        return proc

    def run_program(self, label):
        binary = os.path.join(self.tmp, label)
        subprocess.run([CLANGXX, *FLAGS, "-O1", *[os.path.join(self.dir, s) for s in SOURCES],
                        "-o", binary], check=True)
        return subprocess.run([binary], check=True, capture_output=True, text=True).stdout

    def assert_fixed(self):
        for name in EDITED:
            with open(os.path.join(self.dir, name)) as f, \
                    open(os.path.join(EXPECTED_DIR, name + ".expected")) as g:
                self.assertEqual(f.read(), g.read(), name)

    def test_notes_and_fix(self):
        before = self.run_program("before")
        self.assertEqual(diagnostics(self.gradlint().stdout), FIXABLE)
        fixed = self.gradlint("--fix")
        self.assertEqual(diagnostics(fixed.stdout), FIXABLE)
        self.assert_fixed()
        self.assertEqual(self.run_program("after"), before)
        # Nothing left to report or fix.
        again = self.gradlint("--fix")
        self.assertEqual(diagnostics(again.stdout), [])

    def test_export_fixes_and_apply_replacements(self):
        before = self.run_program("before")
        fixes = os.path.join(self.dir, "fixes.yaml")
        self.assertEqual(diagnostics(self.gradlint("--export-fixes", fixes).stdout), FIXABLE)
        for name in EDITED:  # nothing written yet
            with open(os.path.join(self.dir, name)) as f, open(os.path.join(LAYERED, name)) as g:
                self.assertEqual(f.read(), g.read())
        subprocess.run([APPLY, self.dir], check=True)
        self.assert_fixed()
        self.assertEqual(self.run_program("after"), before)

    def test_jobs_and_cache_agree(self):
        serial = diagnostics(self.gradlint("-j", "1").stdout)
        cache = os.path.join(self.tmp, "cache")
        cold = self.gradlint("-j", "2", "--cache-dir", cache)
        warm = self.gradlint("-j", "2", "--cache-dir", cache)
        self.assertIn("3 of 3 translation units from the cache", warm.stderr)
        self.assertEqual(diagnostics(cold.stdout), serial)
        self.assertEqual(diagnostics(warm.stdout), serial)
        self.gradlint("-j", "2", "--cache-dir", cache, "--fix")
        self.assert_fixed()

    def test_one_file_sees_its_own_callers_only(self):
        out = diagnostics(self.gradlint(os.path.join(self.dir, "grow.cpp")).stdout)
        self.assertEqual(out[0], FINDING[0])
        self.assertIn("grow.cpp:6:50: note: 'grow' is not called in this translation unit", out)

    def test_internal_by_default(self):
        os.remove(os.path.join(self.dir, ".clang-tidy"))
        with open(os.path.join(self.dir, ".clang-tidy"), "w") as f:
            f.write("Checks: '-*,gradlint-*'\n")
        self.assertEqual(diagnostics(self.gradlint("--fix").stdout), NOT_ALLOWED)
        for name in EDITED:
            with open(os.path.join(self.dir, name)) as f, open(os.path.join(LAYERED, name)) as g:
                self.assertEqual(f.read(), g.read())

    def small_project(self, files, before_fix=None):
        """Writes the project, calls before_fix(project) and runs --fix."""
        project = os.path.join(self.tmp, "ops")
        os.mkdir(project)
        for name, text in files.items():
            with open(os.path.join(project, name), "w") as f:
                f.write(text)
        write_database(project, ["ops.cpp", "use.cpp"], ["-std=c++17", f"-I{LINT_INCLUDE}"])
        if before_fix:
            before_fix(project)
        proc = subprocess.run([GRADLINT, "-p", project, "--fix"], cwd=project,
                              capture_output=True, text=True)
        return project, diagnostics(proc.stdout)

    OPTIONS = ("Checks: '-*,gradlint-*'\nCheckOptions:\n"
               "  gradlint-runtime-concat-axis.RewriteSignatures: all\n")

    def test_rejected_fix_is_withdrawn(self):
        # The class already has a member template of the same shape: the
        # function made a template would redeclare it. The compiler rejects
        # the whole-program fix, so none of it is applied.
        files = {
            ".clang-tidy": self.OPTIONS,
            "ops.h": "#include \"tensor.h\"\nusing T4 = mock::Tensor<float, 4>;\n"
                     "struct Ops {\n  T4 join(const T4 &x, int axis) const;\n"
                     "  template <int A> T4 join(const T4 &x) const { return x; }\n};\n",
            "ops.cpp": "#include \"ops.h\"\n"
                       "T4 Ops::join(const T4 &x, int axis) const { return mock::cat(x, x, axis); }\n",
            "use.cpp": "#include \"ops.h\"\nT4 use(const T4 &x) { return Ops{}.join(x, 1); }\n",
        }
        project, out = self.small_project(files)
        self.assertEqual(out, [
            "ops.cpp:2:68: warning: axis passed to 'mock::cat' comes from parameter 'axis', so the rank of the result is only known at run time [gradlint-runtime-concat-axis]",
            "use.cpp:2:44: note: 'Ops::join' is called here with axis 1",
            "ops.cpp:2:31: note: every call passes a constant: the fix makes 'axis' a template parameter of 'Ops::join' and calls the compile-time form",
            "ops.cpp:2:68: note: fix withdrawn: with it the code does not compile: ops.h:5:23: class member cannot be redeclared",
            "tensor.h:26:29: note: compile-time form declared here",
        ])
        for name, text in files.items():
            with open(os.path.join(project, name)) as f:
                self.assertEqual(f.read(), text, name)

    def test_dependent_member_call_gets_template_keyword(self):
        # A caller in a template reaches the member through a dependent
        # object, where `ops.join<1>(x)` would need the `template` keyword.
        files = {
            ".clang-tidy": self.OPTIONS,
            "ops.h": "#include \"tensor.h\"\nusing T4 = mock::Tensor<float, 4>;\n"
                     "struct Ops {\n  T4 join(const T4 &x, int axis) const;\n};\n",
            "ops.cpp": "#include \"ops.h\"\n"
                       "T4 Ops::join(const T4 &x, int axis) const { return mock::cat(x, x, axis); }\n",
            "use.cpp": "#include \"ops.h\"\n"
                       "template <class O> T4 run(const O &ops, const T4 &x) { return ops.join(x, 1); }\n"
                       "T4 use(const T4 &x) { return run(Ops{}, x); }\n",
        }
        project, out = self.small_project(files)
        self.assertEqual(out[:2], [
            "ops.cpp:2:68: warning: axis passed to 'mock::cat' comes from parameter 'axis', so the rank of the result is only known at run time [gradlint-runtime-concat-axis]",
            "use.cpp:2:75: note: 'Ops::join' is called here with axis 1",
        ])
        self.assertFalse([line for line in out if "fix withdrawn" in line], out)
        fixed = {name: open(os.path.join(project, name)).read() for name in files}
        self.assertIn("  template <int axis> T4 join(const T4 &x) const;\n", fixed["ops.h"])
        self.assertEqual(fixed["ops.cpp"], "#include \"ops.h\"\n"
                         "template <int axis> T4 Ops::join(const T4 &x) const { return mock::cat<axis>(x, x); }\n"
                         "template T4 Ops::join<1>(const T4 &) const;\n")
        self.assertIn("return ops.template join<1>(x); }", fixed["use.cpp"])
        subprocess.run([CLANGXX, "-std=c++17", f"-I{LINT_INCLUDE}", "-fsyntax-only",
                        os.path.join(project, "ops.cpp"), os.path.join(project, "use.cpp")], check=True)

    def build_and_run(self, project, outputs):
        """Builds ops.cpp and use.cpp of project and adds what it prints to
        outputs."""
        binary = os.path.join(self.tmp, f"run{len(outputs)}")
        subprocess.run([CLANGXX, "-std=c++17", f"-I{LINT_INCLUDE}",
                        *[os.path.join(project, s) for s in ["ops.cpp", "use.cpp"]],
                        "-o", binary], check=True)
        outputs.append(subprocess.run([binary], check=True, capture_output=True,
                                      text=True).stdout)

    def later_overload_project(self, later):
        # grow(), inline in a header, calls report(r, 0) where only the
        # double overload is declared; use.cpp declares `later` after
        # including it. Made a template, grow's `r` depends on the axis, so
        # report is looked up again where grow<1> is instantiated (the end
        # of use.cpp), where argument-dependent lookup finds `later`.
        files = {
            ".clang-tidy": self.OPTIONS,
            "ops.h": "#include \"scaled_tensor.h\"\n#include <cstdio>\n"
                     "using T3 = nn::Tensor<float, 3>;\n"
                     "namespace nn {\n"
                     "inline void report(const T3 &t, double) { std::printf(\"double %g\\n\", t.scale); }\n"
                     "}\n"
                     "inline T3 grow(const T3 &x, int axis) {\n"
                     "  auto r = nn::cat(x, x, axis);\n"
                     "  auto half = [](float s) { return s / 2; };\n"
                     "  report(r, 0);\n"
                     "  return {half(r.scale)};\n"
                     "}\n"
                     "T3 twice(const T3 &x);\n",
            "ops.cpp": "#include \"ops.h\"\nT3 twice(const T3 &x) { return grow(x, 2); }\n",
            "use.cpp": "#include \"ops.h\"\n"
                       "namespace nn {\n" + later + "\n}\n"
                       "int main() {\n"
                       "  T3 x{3};\n"
                       "  std::printf(\"%g %g\\n\", grow(x, 1).scale, twice(x).scale);\n"
                       "}\n",
        }
        outputs = []
        run = functools.partial(self.build_and_run, outputs=outputs)

        project, out = self.small_project(files, run)
        fixed = {}
        for name in files:
            with open(os.path.join(project, name)) as f:
                fixed[name] = f.read()
        run(project)
        return files, fixed, out, outputs[0], outputs[1]

    FINDING_IN_HEADER = [
        "ops.h:8:26: warning: axis passed to 'nn::cat' comes from parameter 'axis', so the rank of the result is only known at run time [gradlint-runtime-concat-axis]",
        "ops.cpp:2:40: note: 'grow' is called here with axis 2",
        "use.cpp:7:34: note: 'grow' is called here with axis 1",
        "ops.h:7:33: note: every call passes a constant: the fix makes 'axis' a template parameter of 'grow' and calls the compile-time form",
    ]

    def test_call_resolved_again_withdraws_the_fix(self):
        files, fixed, out, before, after = self.later_overload_project(
            "void report(const T3 &t, int) { std::printf(\"int %g\\n\", t.scale); }")
        self.assertEqual(out, self.FINDING_IN_HEADER + [
            "ops.h:8:26: note: fix withdrawn: with it, the call at ops.h:10:3 would call 'nn::report(const T3 &, int)' (use.cpp:3) instead of 'nn::report(const T3 &, double)' (ops.h:5): in the template the fix makes, it is resolved where the template is instantiated, with the types the rewritten code gives, and argument-dependent lookup there also finds functions declared after it",
            "scaled_tensor.h:14:50: note: compile-time form declared here",
        ])
        self.assertEqual(fixed, files)
        self.assertEqual(after, before)

    def test_calls_resolved_as_before_keep_the_fix(self):
        # The later overload takes another rank: grow's calls (the lambda's
        # included) resolve as they do now, and the fix is applied.
        files, fixed, out, before, after = self.later_overload_project(
            "void report(const Tensor<float, 2> &t, int) { std::printf(\"rank 2 %g\\n\", t.scale); }")
        self.assertEqual(out, self.FINDING_IN_HEADER + [
            "scaled_tensor.h:14:50: note: compile-time form declared here",
        ])
        self.assertIn("template <int axis> inline T3 grow(const T3 &x) {\n"
                      "  auto r = nn::cat<axis>(x, x);\n", fixed["ops.h"])
        self.assertIn("grow<2>(x)", fixed["ops.cpp"])
        self.assertIn("grow<1>(x)", fixed["use.cpp"])
        self.assertEqual(after, before)


    def test_calls_on_the_new_result_type_keep_the_fix(self):
        # The compile-time form returns another type (cc::Fixed<R> for
        # cc::Dyn): made a template, extent's describe(r) chooses the
        # overload for it, declared before the call in the header, as the
        # call would where it is written. That is the change of type the
        # fix is for, not a later overload: the fix is applied and the
        # program prints the same.
        files = {
            ".clang-tidy": self.OPTIONS,
            "ops.h": "#include \"typed_concat.h\"\n#include <cstdio>\n"
                     "namespace cc {\n"
                     "inline int describe(const Dyn &d) { return d.rank * 10; }\n"
                     "template <int R> int describe(const Fixed<R> &) { return R * 10; }\n"
                     "}\n"
                     "inline int extent(const cc::Fixed<2> &x, int axis) {\n"
                     "  auto r = cc::concat(x, x, axis);\n"
                     "  return describe(r);\n"
                     "}\n"
                     "int twice(const cc::Fixed<2> &x);\n",
            "ops.cpp": "#include \"ops.h\"\nint twice(const cc::Fixed<2> &x) { return 2 * extent(x, 2); }\n",
            "use.cpp": "#include \"ops.h\"\n"
                       "int main() {\n"
                       "  cc::Fixed<2> x;\n"
                       "  std::printf(\"%d %d\\n\", extent(x, 1), twice(x));\n"
                       "}\n",
        }
        outputs = []
        run = functools.partial(self.build_and_run, outputs=outputs)

        project, out = self.small_project(files, run)
        self.assertEqual(out, [
            "ops.h:8:29: warning: axis passed to 'cc::concat' comes from parameter 'axis', so the rank of the result is only known at run time [gradlint-runtime-concat-axis]",
            "ops.cpp:2:57: note: 'extent' is called here with axis 2",
            "use.cpp:4:36: note: 'extent' is called here with axis 1",
            "ops.h:7:46: note: every call passes a constant: the fix makes 'axis' a template parameter of 'extent' and calls the compile-time form",
            "typed_concat.h:17:53: note: compile-time form declared here",
        ])
        with open(os.path.join(project, "ops.h")) as f:
            self.assertIn("template <int axis> inline int extent(const cc::Fixed<2> &x) {\n"
                          "  auto r = cc::concat<axis>(x, x);\n", f.read())
        run(project)
        self.assertEqual(outputs, ["20 60\n", "20 60\n"])


class ErasureAcrossFilesTest(unittest.TestCase):
    """A pullback whose std::any comes from a function defined in another
    file, which passes on the result of one defined in a third: run over
    the database, the notes name those definitions, innermost first; run
    on the pullback's file alone, its declaration in the header."""

    FILES = {
        ".clang-tidy": "Checks: '-*,gradlint-*'\n",
        "grads.h": "#include \"autodiff.h\"\n#include <any>\n"
                   "std::any erase(const ad::Tensor &t);\nstd::any scaled(const ad::Tensor &t);\n",
        "erase.cpp": "#include \"grads.h\"\nstd::any erase(const ad::Tensor &t) { return t; }\n",
        "scaled.cpp": "#include \"grads.h\"\n"
                      "std::any scaled(const ad::Tensor &t) { return erase(t * 2.0f); }\n",
        "square.cpp": "#include \"grads.h\"\n"
                      "std::any square_pullback(const ad::Tensor &x, const ad::Tensor &dy) {\n"
                      "  return scaled(dy * x);\n}\n",
    }
    FINDING = "square.cpp:2:10: warning: pullback 'square_pullback' returns type-erased 'std::any' [gradlint-type-erased-pullback]"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gradlint-erasure-")
        for name, text in self.FILES.items():
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        write_database(self.dir, ["erase.cpp", "scaled.cpp", "square.cpp"],
                       ["-std=c++17", f"-I{LINT_INCLUDE}"])

    def tearDown(self):
        shutil.rmtree(self.dir)

    def gradlint(self, *args):
        proc = subprocess.run([GRADLINT, "-p", self.dir, *args], cwd=self.dir,
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return diagnostics(proc.stdout)

    def test_traced_to_the_defining_files(self):
        expected = [
            self.FINDING,
            "erase.cpp:2:10: note: the erasure comes from 'erase', which returns 'std::any'",
            "scaled.cpp:2:10: note: the erasure comes from 'scaled', which returns 'std::any'",
        ]
        self.assertEqual(self.gradlint(), expected)
        cache = os.path.join(self.dir, "cache")
        self.assertEqual(self.gradlint("-j", "2", "--cache-dir", cache), expected)
        self.assertEqual(self.gradlint("-j", "2", "--cache-dir", cache), expected)

    def test_one_file_names_the_declaration(self):
        self.assertEqual(self.gradlint(os.path.join(self.dir, "square.cpp")), [
            self.FINDING,
            "grads.h:4:10: note: the erasure comes from 'scaled', which returns 'std::any'",
        ])


if __name__ == "__main__":
    unittest.main()
