// refcat CUDA cat/split bandwidth against a device-to-device copy of the
// same bytes (cudaMemcpyAsync), measured with CUDA events, interleaved.
// Needs a GPU; run through bench/run_cuda_bench.sh on a GPU machine.
#include "refcat/cuda.h"
#include "refcat/plan.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using refcat::index_t;

struct Config {
  std::string name;
  int axis;
  index_t chunk, inputs, total;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F> double time_ms(F &&f, int reps) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < reps; ++i)
    f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / reps;
}

} // namespace

int main() {
  if (!refcat::cuda::device_available()) {
    std::printf("cat_cuda_bench: no CUDA device visible; nothing to measure\n");
    return 0;
  }
  std::printf("device: %s\n", refcat::cuda::device_name().c_str());
  std::printf("%-40s %10s %10s %10s %8s %8s\n", "config", "copy GB/s", "cat GB/s", "split GB/s",
              "cat/copy", "split/copy");
  const index_t MiB = 1 << 20;
  std::vector<Config> configs;
  for (index_t total : {16 * MiB, 256 * MiB, 1024 * MiB})
    for (auto [axis, chunk, inputs] : {std::tuple<int, index_t, index_t>{0, 0, 2}, {2, 4, 2}, {2, 64, 2},
                                      {2, 4096, 8}, {1, 256, 8}, {2, 64, 64}})
      configs.push_back({std::string(axis == 0 ? "first" : axis == 1 ? "middle" : "last") +
                             "/chunk:" + std::to_string(chunk) + "B/inputs:" + std::to_string(inputs) +
                             "/" + std::to_string(total / MiB) + "MiB",
                         axis, chunk, inputs, total});
  for (const Config &c : configs) {
    const index_t per = c.total / c.inputs;
    std::vector<std::vector<index_t>> shapes(c.inputs);
    for (auto &s : shapes)
      s = c.axis == 0 ? std::vector<index_t>{per / 4, 1, 1}
          : c.axis == 1 ? std::vector<index_t>{per / c.chunk, c.chunk / 64, 16}
                        : std::vector<index_t>{per / c.chunk, 1, c.chunk / 4};
    std::vector<refcat::ShapeRef> refs;
    for (auto &s : shapes)
      refs.push_back({s.data(), 3, refcat::dtype::f32});
    const refcat::CopyPlan plan = refcat::plan_cat("bench", refs.data(), refs.size(), c.axis);
    std::vector<refcat::cuda::DeviceBuffer> parts;
    std::vector<const void *> src;
    std::vector<void *> dst;
    for (index_t i = 0; i < c.inputs; ++i) {
      parts.emplace_back(static_cast<std::size_t>(plan.outer * plan.inner_bytes[i]));
      cudaMemset(parts.back().get(), 1, parts.back().bytes());
      src.push_back(parts.back().get());
      dst.push_back(parts.back().get());
    }
    refcat::cuda::DeviceBuffer out(plan.total_bytes()), other(plan.total_bytes());
    std::vector<double> tc, tf, tb;
    const int reps = 10;
    for (int round = 0; round < 9; ++round) {
      tc.push_back(time_ms([&] { refcat::cuda::copy(other.get(), out.get(), plan.total_bytes()); }, reps));
      tf.push_back(time_ms([&] { refcat::cuda::cat(plan, src.data(), out.get()); }, reps));
      tb.push_back(time_ms([&] { refcat::cuda::split(plan, out.get(), dst.data()); }, reps));
    }
    auto gbs = [&](double ms) { return 2.0 * plan.total_bytes() / (ms * 1e-3) / 1e9; };
    const double c_ms = median(tc), f_ms = median(tf), b_ms = median(tb);
    std::printf("%-40s %10.0f %10.0f %10.0f %7.0f%% %7.0f%%\n", c.name.c_str(), gbs(c_ms), gbs(f_ms),
                gbs(b_ms), 100 * c_ms / f_ms, 100 * c_ms / b_ms);
  }
}
