#!/usr/bin/env bash
# The GPU checks as one script for a machine with an NVIDIA GPU: refcat's
# CUDA tests (a refcat-cuda-tests binary built here by `make build`, which
# needs LLVM and gtest, so it is carried, not rebuilt), the same tests under
# compute-sanitizer memcheck (the 2^31-unit copy left out: too slow under the
# sanitizer), then bench/run_cuda_bench.sh. Each step runs even if an
# earlier one failed; the exit status is the first failure's.
# Usage: bash scripts/gpu_check.sh TESTS-BINARY OUT-DIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tests=${1:?usage: gpu_check.sh TESTS-BINARY OUT-DIR}
out=${2:?usage: gpu_check.sh TESTS-BINARY OUT-DIR}
mkdir -p "$out"
status=0
step() {
  local name=$1; shift
  echo "== $name: $*"
  local start=$SECONDS
  "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc after $((SECONDS - start)) s"
  if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true
step cuda-tests "$tests"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$sanitizer" ]; then
  step memcheck "$sanitizer" --tool memcheck --error-exitcode 3 "$tests" \
    --gtest_filter=-CudaCat.LargeCopyUses64BitIndicesCorrectly
else
  echo "== memcheck: skipped, no compute-sanitizer"
fi
step cuda-bench bash "$root/bench/run_cuda_bench.sh" "${TMPDIR:-/tmp}/gradlint-cuda-bench"
cp "${TMPDIR:-/tmp}"/gradlint-cuda-bench/*.txt "$out/" 2>/dev/null || true
exit "$status"
