#!/usr/bin/env bash
# `make demo`: gradlint on the bundled dense-block fixture. Shows the
# diagnostics with their fix-its, the diff that --fix makes, and that the
# fixed file still compiles.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in
  /*) gradlint="$build/bin/gradlint" ;;
  *) gradlint="$root/$build/bin/gradlint" ;;
esac
fixture="$root/fixtures/demo/dense_block.cpp"
flags=(-std=c++17 "-I$root/fixtures/lint/include")
clangxx=$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)

banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

banner "gradlint fixtures/demo/dense_block.cpp"
status=0
(cd "$root" && "$gradlint" --quiet fixtures/demo/dense_block.cpp -- "${flags[@]}") || status=$?
echo "(exit status $status: warnings only)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$fixture" "$work/dense_block.cpp"
banner "gradlint --fix: the diff"
"$gradlint" --quiet --fix "$work/dense_block.cpp" -- "${flags[@]}" >/dev/null 2>&1 || true
if diff -u --label before --label after "$fixture" "$work/dense_block.cpp"; then
  echo "demo: --fix changed nothing" >&2
  exit 1
fi

banner "the fixed file compiles"
"$clangxx" -fsyntax-only "${flags[@]}" "$work/dense_block.cpp" && echo "clang++ -fsyntax-only: ok"

banner "what is left after --fix (no automatic fix possible)"
"$gradlint" --quiet "$work/dense_block.cpp" -- "${flags[@]}" | grep -E 'warning|note' || true
