#!/usr/bin/env bash
# The CUDA benchmark as one script for a GPU machine: builds refcat's CUDA
# tests and benchmark with nvcc (no LLVM needed), runs the tests, the
# benchmark, and torch.cat on the same shapes when PyTorch is importable.
# Usage: bash bench/run_cuda_bench.sh [out-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-cuda}
mkdir -p "$out"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
flags=(-std=c++17 -O3 -I"$root/fixtures/refcat/include" -gencode arch=compute_90,code=[sm_90,compute_90])
"$nvcc" "${flags[@]}" -x cu "$root/fixtures/refcat/src/cat_cuda.cu" -x cu "$root/bench/cat_cuda_bench.cpp" -o "$out/cat_cuda_bench"
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory --format=csv || true
"$out/cat_cuda_bench" | tee "$out/cat_cuda_bench.txt"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  python3 "$root/bench/torch_cat_bench.py" | tee "$out/torch_cat_bench.txt"
fi
