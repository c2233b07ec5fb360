#!/usr/bin/env bash
# Fuzzes the gradlint checks with libFuzzer (tests/fuzz/GradlintFuzzer.cpp,
# built with ASan+UBSan in build-asan/ by scripts/sanitize.sh) for a bounded
# time. The corpus starts from every lint case in fixtures/lint and grows in
# build-asan/fuzz-corpus; crashes land in build-asan/fuzz-artifacts. Not part
# of `make test`; the last run's figures are in docs/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS (default 600)] [extra libFuzzer flags]
set -euo pipefail
seconds="${1:-600}"
shift || true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/sanitize.sh" --build gradlint-fuzzer
cd "$root/build-asan"
mkdir -p fuzz-corpus fuzz-artifacts fuzz-seeds
for f in "$root"/fixtures/lint/gradlint-*/*.cpp; do
  cp "$f" "fuzz-seeds/$(basename "$(dirname "$f")")-$(basename "$f")"
done
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="allow_user_poisoning=0" # see scripts/sanitize.sh
# Leaks off: see scripts/sanitize.sh. A generous per-input timeout: each
# input is a full parse of the mock headers and the standard headers they use.
exec ./bin/gradlint-fuzzer fuzz-corpus fuzz-seeds \
  -dict="$root/tests/fuzz/cpp.dict" -max_total_time="$seconds" -max_len=8192 \
  -timeout=60 -rss_limit_mb=6144 -detect_leaks=0 -print_final_stats=1 \
  -artifact_prefix=fuzz-artifacts/ "$@"
