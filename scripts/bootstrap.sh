#!/usr/bin/env bash
# Installs every Debian package gradlint's build, demo and tests need, when
# missing. Idempotent and non-interactive; run as root (or with sudo present)
# on Debian 12. (g++ is nvcc's host compiler for refcat's optional CUDA
# part; nvcc itself comes with the CUDA toolkit in /usr/local/cuda.) Then
# installs the SARIF validator the tests use (tools/sarif-validator, from
# the npm registry, pinned by its package-lock.json). Used by `make demo`,
# `make test` and .ci/run.
set -euo pipefail

PACKAGES=(
  cmake ninja-build make git python3 python3-yaml neovim g++
  llvm-22-dev libclang-22-dev clang-22 clang-tidy-22 clang-tools-22
  clangd-22 llvm-22-tools
  libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc
  libfmt-dev libgtest-dev libbenchmark-dev
  libxtensor-dev libeigen3-dev  # real libraries in the lint cases (fixtures/lint/.../real-*)
  libclang-rt-22-dev  # sanitizer and libFuzzer runtimes: scripts/sanitize.sh, fuzz.sh
  help2man  # the man page, generated from gradlint --help
  pre-commit  # tests/e2e/pre_commit_test.py: the pre-commit framework's hook
  # tests/e2e/bazel_test.py: the Bazel aspect, offline with Debian's repositories
  bazel-bootstrap bazel-rules-java bazel-platforms bazel-skylib
)

# `--llvm19`: also LLVM 19 (Debian 12's clang-tidy-19), for `make test-llvm19`.
if [ "${1:-}" = "--llvm19" ]; then
  PACKAGES+=(llvm-19-dev libclang-19-dev clang-19 clang-tidy-19 clang-tools-19 clangd-19)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# Node.js and npm come with the machine image here; Debian's packages
# otherwise.
if ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

install_sarif_validator() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/sarif-validator"
  # Reinstalled when the lock file changes (npm ci records it).
  if [ -x "$dir/node_modules/.bin/sarif-multitool" ] &&
     cmp -s "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.installed"; then
    return 0
  fi
  echo "bootstrap: installing the SARIF validator (npm ci in tools/sarif-validator)" >&2
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp "$dir/package-lock.json" "$dir/node_modules/.package-lock.json.installed"
}

if [ ${#missing[@]} -eq 0 ]; then
  install_sarif_validator
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "bootstrap: missing packages (${missing[*]}) and not root; install them and retry" >&2
    exit 1
  fi
fi

echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_sarif_validator
