#!/usr/bin/env bash
# `make demo`: the refcat story. gradlint on the erased dense-block program
# (fixtures/refcat/examples/dense_block_erased.cpp): its diagnostics with
# fix-its, the diff --fix makes, a second run that finds nothing, both
# versions built and run (same output, bitwise), their compile times and
# their training-step times; then the same block split over three files,
# with the axis passed down as a parameter (fixtures/refcat/examples/layered:
# gradlint over its compilation database fixes every file at once); then
# what gradlint reports but cannot fix (fixtures/demo/dense_block.cpp: a
# genuinely runtime axis, with notes).
# Fails if any of that breaks. Needs the gradlint and dense_block_bench
# targets of the build directory given as $1 (make demo builds them).
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
case "$build" in
  /*) ;;
  *) build="$root/$build" ;;
esac
gradlint="$build/bin/gradlint"
bench="$build/bin/dense_block_bench"
cmake_fixed="$build/bench/fixed/dense_block_erased.cpp"
for f in "$gradlint" "$bench" "$cmake_fixed"; do
  [ -e "$f" ] || { echo "demo: $f is missing; build the gradlint and dense_block_bench targets first" >&2; exit 1; }
done
clangxx=$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)
examples=fixtures/refcat/examples
refcat_flags=(-std=c++17 "-I$root/$examples" "-I$root/fixtures/refcat/include")

banner() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
seconds() { python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f} s")' "$@"; }
now() { date +%s.%N; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root"

banner "1. gradlint $examples/dense_block_erased.cpp (runtime axis, std::any, std::function)"
status=0
"$gradlint" --quiet "$examples/dense_block_erased.cpp" -- "${refcat_flags[@]}" || status=$?
echo "(exit status $status: warnings only)"

banner "2. gradlint --fix on a copy: the diff"
cp "$examples/dense_block_erased.cpp" "$work/dense_block_erased.cpp"
"$gradlint" --quiet --fix "$work/dense_block_erased.cpp" -- "${refcat_flags[@]}" >/dev/null 2>&1
if diff -u --label before --label after "$examples/dense_block_erased.cpp" "$work/dense_block_erased.cpp"; then
  echo "demo: --fix changed nothing" >&2
  exit 1
fi

banner "3. gradlint on the fixed program"
left=$("$gradlint" --quiet "$work/dense_block_erased.cpp" -- "${refcat_flags[@]}" 2>&1)
if [ -n "$left" ]; then
  printf '%s\n' "$left"
  echo "demo: the fixed program still has findings" >&2
  exit 1
fi
echo "no findings"

banner "4. build both versions: clang++-22 -std=c++17 -O2"
for version in erased fixed; do
  source="$examples/dense_block_erased.cpp"
  [ "$version" = fixed ] && source="$work/dense_block_erased.cpp"
  start=$(now)
  "$clangxx" "${refcat_flags[@]}" -O2 "$source" -o "$work/$version"
  printf '%-7s %s\n' "$version" "$(seconds "$start" "$(now)")"
done
echo "(one compile each; bench/dense_block_compile_bench.py measures it properly)"

banner "5. run both: two training steps, every value printed in hex"
"$work/erased" >"$work/erased.out"
"$work/fixed" >"$work/fixed.out"
if ! cmp -s "$work/erased.out" "$work/fixed.out"; then
  diff "$work/erased.out" "$work/fixed.out" | head -20
  echo "demo: the fixed program computes something else" >&2
  exit 1
fi
grep '^loss' "$work/erased.out" | sed 's/^/erased and fixed: /'
echo "identical output: $(wc -w <"$work/erased.out") words, losses, outputs and all gradients, bitwise"

banner "6. training-step time, before and after (build/bin/dense_block_bench)"
# The benchmark's fixed version is the same gradlint --fix, made at build time.
cmp "$cmake_fixed" "$work/dense_block_erased.cpp"
"$bench"

banner "7. the axis passed down as a parameter, across files: $examples/layered"
cp -r "$examples/layered" "$work/layered"
python3 - "$work/layered" "${refcat_flags[@]}" <<'PY'
import json, os, sys
d, flags = sys.argv[1], sys.argv[2:]
json.dump([{"directory": d, "file": os.path.join(d, f), "arguments": ["clang++", *flags, "-c", os.path.join(d, f)]}
           for f in ("grow.cpp", "block.cpp", "main.cpp")], open(os.path.join(d, "compile_commands.json"), "w"))
PY
layered=("$work/layered/grow.cpp" "$work/layered/block.cpp" "$work/layered/main.cpp")
"$clangxx" "${refcat_flags[@]}" -O2 "${layered[@]}" -o "$work/layered-before"
(cd "$work/layered" && "$gradlint" --quiet -p . 2>&1 | sed "s|$work/||g")
(cd "$work/layered" && "$gradlint" --quiet -p . --fix >/dev/null 2>&1)
changed=0
for f in layers.h grow.cpp block.cpp main.cpp; do
  diff -u --label "before/$f" --label "after/$f" "$examples/layered/$f" "$work/layered/$f" || changed=1
done
[ "$changed" = 1 ] || { echo "demo: --fix changed nothing in the layered project" >&2; exit 1; }
"$clangxx" "${refcat_flags[@]}" -O2 "${layered[@]}" -o "$work/layered-after"
if ! cmp -s <("$work/layered-before") <("$work/layered-after"); then
  echo "demo: the fixed layered project computes something else" >&2
  exit 1
fi
"$work/layered-after" | sed 's/^/before and after: /'

banner "8. what gradlint reports but cannot fix: fixtures/demo/dense_block.cpp"
cp fixtures/demo/dense_block.cpp "$work/dense_block.cpp"
mock_flags=(-std=c++17 "-I$root/fixtures/lint/include")
"$gradlint" --quiet --fix "$work/dense_block.cpp" -- "${mock_flags[@]}" >/dev/null 2>&1 || true
"$clangxx" -fsyntax-only "${mock_flags[@]}" "$work/dense_block.cpp"
echo "(fixed all it could; the fixed file compiles. Left, with the notes that say why:)"
left=$("$gradlint" --quiet "$work/dense_block.cpp" -- "${mock_flags[@]}" 2>&1 || true)
printf '%s\n' "$left" | sed "s|$work/||g"
if ! grep -q 'note:' <<<"$left"; then
  echo "demo: expected the runtime-axis finding with its notes" >&2
  exit 1
fi
