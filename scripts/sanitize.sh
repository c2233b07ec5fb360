#!/usr/bin/env bash
# Builds gradlint with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-asan/ (checks, driver, gradlint-clangd, the unit tests and the
# libFuzzer target, all with libFuzzer's coverage instrumentation too; LLVM's
# own libraries are Debian's, uninstrumented) and runs every test that uses
# those binaries: unit.*, cli*, e2e.large-tu and the lint cases through the
# gradlint command and gradlint-clangd. The lint cases through the stock
# clang-tidy are left out: its plugin would need an instrumented clang-tidy.
# Not part of `make test`. The last run's result is in docs/fuzzing.md.
#
#   scripts/sanitize.sh [extra ctest arguments]
#   scripts/sanitize.sh --build TARGET...   (configure and build only; fuzz.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
build=build-asan
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++-22 \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  -DGRADLINT_FUZZER=ON -DREFCAT_ENABLE_CUDA=OFF >/dev/null
if [ "${1:-}" = --build ]; then
  shift
  exec cmake --build "$build" --target "$@"
fi
cmake --build "$build" --target gradlint gradlint-clangd gradlint-unit-tests gradlint-fuzzer
# Leak checking is off: clang's frontend frees nothing at exit on purpose
# (-disable-free), which LeakSanitizer would report for every file.
# allow_user_poisoning=0: LLVM's headers, compiled into our instrumented
# code, poison the free part of a BumpPtrAllocator slab; Debian's
# uninstrumented LLVM/clangd code sharing that allocator then writes there
# and ASan reports a use-after-poison that is not one (seen in clangd's
# TUScheduler).
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:allow_user_poisoning=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$build"
ctest -j "$(nproc)" --output-on-failure \
  -R '^(unit\.|cli|e2e\.large-tu|lint\.gradlint\.|lint\.clangd\.)' "$@"
