#!/usr/bin/env python3
"""The Debian package: built with CPack, installed with apt-get on this
machine, used from /usr/bin on a sample project, and removed cleanly.

Needs root (apt-get, dpkg); skipped (exit 77) otherwise, and when a gradlint
package is already installed (the test must not remove someone's).
Environment: BUILD_DIR, CPACK, GRADLINT_CLANG.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile

BUILD_DIR = os.environ["BUILD_DIR"]
CPACK = os.environ["CPACK"]
CLANG = os.environ["GRADLINT_CLANG"]
SKIP = 77

SAMPLE = """#include <cstdio>
#include <functional>

int main() {
  std::function<float(float)> pullback = [](float dy) { return dy * 2; };
  std::printf("%g\\n", pullback(1.5f));
}
"""


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return proc


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    if os.geteuid() != 0:
        print("SKIP: installing a package needs root")
        return SKIP
    if run(["dpkg-query", "-W", "gradlint"]).returncode == 0:
        print("SKIP: a gradlint package is already installed; not touching it")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="gradlint-deb-") as tmp:
        out = os.path.join(tmp, "package")
        proc = run([CPACK, "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake"), "-B", out])
        if proc.returncode != 0:
            fail("cpack failed:\n" + proc.stdout + proc.stderr)
        debs = glob.glob(os.path.join(out, "gradlint_*_amd64.deb"))
        if len(debs) != 1:
            fail(f"expected one gradlint_<version>_amd64.deb, found {debs}")
        deb = debs[0]
        info = run(["dpkg-deb", "-f", deb, "Depends"]).stdout
        for needed in ("libllvm22", "libclang-cpp22"):
            if needed not in info:
                fail(f"Depends lacks {needed}: {info}")
        for build_only in ("-dev", "cmake", "ninja", "clang-22,"):
            if build_only in info:
                fail(f"Depends names a build package ({build_only}): {info}")
        print(f"ok: {os.path.basename(deb)}, {os.path.getsize(deb)} bytes, Depends: {info.strip()}")
        try:
            proc = run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", deb],
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
            if proc.returncode != 0:
                fail("apt-get install failed:\n" + proc.stdout + proc.stderr)
            for path in ("/usr/bin/gradlint", "/usr/bin/gradlint-clangd",
                         "/usr/lib/gradlint/libgradlint-tidy.so",
                         "/usr/share/man/man1/gradlint.1",
                         "/usr/share/doc/gradlint/checks/gradlint-runtime-concat-axis.md"):
                if not os.path.isfile(path):
                    fail(f"{path} is not installed")
            project = os.path.join(tmp, "project")
            os.makedirs(project)
            with open(os.path.join(project, "sample.cpp"), "w") as f:
                f.write(SAMPLE)
            proc = run(["gradlint", "--checks=-*,gradlint-*", "sample.cpp", "--", "-std=c++17"],
                       cwd=project, env=dict(os.environ, PATH="/usr/bin:/bin"))
            if "[gradlint-erased-pullback-storage]" not in proc.stdout:
                fail("/usr/bin/gradlint reports nothing:\n" + proc.stdout + proc.stderr)
            proc = run(["/usr/bin/gradlint", "--checks=-*,gradlint-*", "--fix", "sample.cpp",
                        "--", "-std=c++17"], cwd=project)
            with open(os.path.join(project, "sample.cpp")) as f:
                if "  auto pullback = [](float dy) { return dy * 2; };" not in f.read():
                    fail("--fix did not fix:\n" + proc.stdout + proc.stderr)
            if run([CLANG, "-std=c++17", "-fsyntax-only", "sample.cpp"], cwd=project).returncode:
                fail("the fixed sample does not compile")
            print("ok: /usr/bin/gradlint finds and fixes")
        finally:
            proc = run(["dpkg", "--purge", "gradlint"])
        if proc.returncode != 0:
            fail("dpkg --purge failed:\n" + proc.stdout + proc.stderr)
        left = [p for p in ("/usr/bin/gradlint", "/usr/bin/gradlint-clangd", "/usr/lib/gradlint",
                            "/usr/share/doc/gradlint", "/usr/share/man/man1/gradlint.1")
                if os.path.exists(p)]
        if left:
            fail(f"left behind after removal: {left}")
        print("ok: removed cleanly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
