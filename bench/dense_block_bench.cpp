// One training step (forward + backward + SGD) of the dense-block example:
// the erased program, the program gradlint --fix made of it, and the
// hand-written stable one, timed interleaved in one run over several sizes.
// Run: build/bin/dense_block_bench (docs/benchmarks.md).
#include "dense_layer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <vector>

dense::StepResult erased_step(dense::Model &, const dense::T4 &, const dense::T4 &, double);
dense::StepResult fixed_step(dense::Model &, const dense::T4 &, const dense::T4 &, double);
dense::StepResult stable_step(dense::Model &, const dense::T4 &, const dense::T4 &, double);

namespace {

struct Size {
  const char *name;
  dense::index_t batch, side, channels, growth;
  int rounds, reps;
};

using Step = dense::StepResult (*)(dense::Model &, const dense::T4 &, const dense::T4 &, double);

} // namespace

int main() {
  using namespace dense;
  // Steady state, as with a training framework's caching allocator: keep freed
  // blocks in the heap instead of returning them to the kernel, so a step's
  // time is its work and not the page faults of re-mapping its tensors.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, -1);
  const Size sizes[] = {
      {"tiny   (2x3x3, 4 ch, growth 3)", 2, 3, 4, 3, 31, 2000},
      {"small  (8x8x8, 16 ch, growth 8)", 8, 8, 16, 8, 21, 20},
      {"medium (16x16x16, 32 ch, growth 16)", 16, 16, 32, 16, 11, 2},
      {"large  (16x128x128, 4 ch, growth 2)", 16, 128, 4, 2, 11, 1},
  };
  const char *names[] = {"erased", "gradlint-fixed", "stable"};
  const Step steps[] = {erased_step, fixed_step, stable_step};
  std::printf("dense block training step (forward + backward + SGD), interleaved; lr 0 so every\n"
              "call does the same work. Times are per step; ratios are to the erased program.\n\n");
  std::printf("%-38s %-15s %12s %12s %12s %8s\n", "size", "version", "min", "median", "max",
              "ratio");
  for (const Size &s : sizes) {
    Problem p = make_problem(s.batch, s.side, s.channels, s.growth);
    Model &model = p.model;
    const T4 &input = p.input, &target = p.target;
    // Same results first: a benchmark of programs that disagree is meaningless.
    StepResult ref = steps[0](model, input, target, 0.0);
    for (Step step : steps) {
      StepResult r = step(model, input, target, 0.0);
      if (r.loss != ref.loss || std::memcmp(r.dinput.data(), ref.dinput.data(), ref.dinput.bytes())) {
        std::fprintf(stderr, "dense_block_bench: the versions disagree at size %s\n", s.name);
        return 1;
      }
    }
    std::vector<double> times[3];
    for (int round = 0; round < s.rounds; ++round)
      for (int v = 0; v < 3; ++v) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < s.reps; ++i)
          steps[v](model, input, target, 0.0);
        times[v].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / s.reps);
      }
    for (auto &t : times)
      std::sort(t.begin(), t.end());
    const double base = times[0][times[0].size() / 2];
    for (int v = 0; v < 3; ++v) {
      const auto &t = times[v];
      std::printf("%-38s %-15s %10.1fus %10.1fus %10.1fus %8.3f\n", v ? "" : s.name, names[v],
                  t.front() * 1e6, t[t.size() / 2] * 1e6, t.back() * 1e6, t[t.size() / 2] / base);
    }
  }
}
