// refcat CPU cat and split bandwidth (Google Benchmark), and the two
// ratios users ask about. Run: build/bin/cat_cpu_bench (see docs/benchmarks.md).
//
// * Effective bandwidth = 2 x output bytes / time (every byte read once and
//   written once), next to memcpy of the same bytes between two buffers in
//   the same run; "vs memcpy" in the summary is the ratio of the times per iteration.
// * Compile-time vs runtime axis form: the two calls alternated in one loop
//   (interleaved), medians compared.
#include "refcat/refcat.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

using refcat::index_t;
using F3 = refcat::Tensor<float, 3>;

struct Config {
  std::string name;
  int axis;           // 0 first, 1 middle, 2 last
  index_t chunk;      // bytes per contiguous row chunk of one input
  int inputs;
  index_t total;      // output bytes
};

// Input i's shape for a config: rank 3, float, the chunk on the axis.
F3::shape_type input_shape(const Config &c) {
  const index_t per_input = c.total / c.inputs;
  switch (c.axis) {
  case 0: return {per_input / 4, 1, 1};                         // one row: outer == 1
  case 1: return {per_input / c.chunk, c.chunk / 64, 16};       // chunk = k x 16 floats
  default: return {per_input / c.chunk, 1, c.chunk / 4};        // chunk = innermost run
  }
}

std::vector<F3> make_inputs(const Config &c) {
  std::vector<F3> xs;
  for (int i = 0; i < c.inputs; ++i)
    xs.emplace_back(input_shape(c), static_cast<float>(i));
  return xs;
}

// Calls f(std::integral_constant<int, A>, std::index_sequence<0..N-1>) for a
// runtime axis and input count (2, 8, 16 or 64): the compile-time form needs
// both as constants.
template <class F> decltype(auto) with_static(int axis, std::size_t inputs, F &&f) {
  auto by_count = [&](auto a) -> decltype(auto) {
    switch (inputs) {
    case 2: return f(a, std::make_index_sequence<2>{});
    case 8: return f(a, std::make_index_sequence<8>{});
    case 16: return f(a, std::make_index_sequence<16>{});
    case 64: return f(a, std::make_index_sequence<64>{});
    default:
      std::fprintf(stderr, "cat_cpu_bench: no compile-time form for %zu inputs\n", inputs);
      std::abort();
    }
  };
  switch (axis) {
  case 0: return by_count(std::integral_constant<int, 0>{});
  case 1: return by_count(std::integral_constant<int, 1>{});
  default: return by_count(std::integral_constant<int, 2>{});
  }
}

F3 cat_static(int axis, const std::vector<F3> &xs) {
  return with_static(axis, xs.size(), [&]<int A, std::size_t... I>(
                                          std::integral_constant<int, A>, std::index_sequence<I...>) {
    return refcat::cat<A>(xs[I]...);
  });
}

void cat_into_static(int axis, F3 &out, const std::vector<F3> &xs) {
  with_static(axis, xs.size(), [&]<int A, std::size_t... I>(
                                   std::integral_constant<int, A>, std::index_sequence<I...>) {
    refcat::cat_into<A>(out, xs[I]...);
  });
}

std::vector<Config> configs() {
  std::vector<Config> out;
  const index_t KiB = 1024, MiB = KiB * KiB;
  auto add = [&](int axis, index_t chunk, int inputs, index_t total) {
    static const char *axes[] = {"first", "middle", "last"};
    std::string size = total >= MiB ? std::to_string(total / MiB) + "MiB" : std::to_string(total / KiB) + "KiB";
    out.push_back({std::string(axes[axis]) + "/chunk:" + std::to_string(chunk) + "B/inputs:" +
                       std::to_string(inputs) + "/" + size,
                   axis, chunk, inputs, total});
  };
  for (index_t total : {4 * KiB, 256 * KiB, 64 * MiB}) {
    add(0, total / 2, 2, total);
    add(2, 4, 2, total);
    add(2, 64, 2, total);
    add(2, 4096, 2, std::max<index_t>(total, 8 * KiB));
    add(1, 256, 8, total);
    add(2, 64, 64, std::max<index_t>(total, 64 * 64));
  }
  // Many inputs at the target size: 16 of 64 B, 64 of 4 KiB.
  add(2, 64, 16, 64 * MiB);
  add(2, 4096, 64, 64 * MiB);
  add(0, 512 * MiB, 2, 1024 * MiB);
  add(2, 4096, 8, 1024 * MiB);
  add(2, 64, 2, 1024 * MiB);
  return out;
}

// The plan of a config's cat, for running its split: `dst` gets the
// inputs' buffers, which the split overwrites.
refcat::CopyPlan split_plan(const Config &c, std::vector<F3> &xs, std::vector<std::byte *> &dst) {
  std::vector<refcat::ShapeRef> refs;
  for (auto &x : xs) {
    refs.push_back({x.shape().data(), 3, refcat::dtype::f32});
    dst.push_back(reinterpret_cast<std::byte *>(x.data()));
  }
  return refcat::plan_cat("bench", refs.data(), refs.size(), c.axis);
}

void set_bandwidth(benchmark::State &state, index_t total) {
  state.counters["bandwidth"] = benchmark::Counter(
      static_cast<double>(2 * total), benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1024);
}

void register_all() {
  for (const Config &c : configs()) {
    benchmark::RegisterBenchmark(("memcpy/" + c.name).c_str(), [c](benchmark::State &state) {
      std::vector<std::byte> a(c.total, std::byte{1}), b(c.total, std::byte{2});
      for (auto _ : state) {
        std::memcpy(b.data(), a.data(), c.total);
        benchmark::DoNotOptimize(b.data());
        benchmark::ClobberMemory();
      }
      set_bandwidth(state, c.total);
    });
    benchmark::RegisterBenchmark(("cat/" + c.name).c_str(), [c](benchmark::State &state) {
      auto xs = make_inputs(c);
      F3 out = cat_static(c.axis, xs);
      for (auto _ : state) {
        cat_into_static(c.axis, out, xs);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
      }
      set_bandwidth(state, c.total);
    });
    benchmark::RegisterBenchmark(("split/" + c.name).c_str(), [c](benchmark::State &state) {
      auto xs = make_inputs(c);
      F3 out = cat_static(c.axis, xs);
      std::vector<std::byte *> dst;
      const refcat::CopyPlan plan = split_plan(c, xs, dst);
      for (auto _ : state) {
        refcat::cpu::split(plan, reinterpret_cast<const std::byte *>(out.data()), dst.data());
        benchmark::ClobberMemory();
      }
      set_bandwidth(state, c.total);
    });
  }
}

// Collects each benchmark's time per iteration for the summary while
// printing the usual console table.
class Collector : public benchmark::ConsoleReporter {
public:
  std::map<std::string, double> seconds; // per iteration
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const Run &r : runs)
      if (r.run_type == Run::RT_Iteration)
        seconds[r.run_name.function_name] = r.GetAdjustedRealTime() / 1e9;
    ConsoleReporter::ReportRuns(runs);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The compile-time form against the runtime form, alternated call by call,
// on the shapes whose cat ran (`--benchmark_filter` selects).
void interleaved_form_ratio(const std::map<std::string, double> &ran) {
  std::printf("\ncompile-time axis form vs runtime axis form (interleaved, allocating cat, 31 rounds)\n");
  std::printf("%-44s %12s %12s %8s %8s %8s\n", "shape", "static", "runtime", "min", "median", "max");
  const index_t KiB = 1024, MiB = KiB * KiB;
  for (Config c : {Config{"last/chunk:64B/inputs:2/4KiB", 2, 64, 2, 4 * KiB},
                   Config{"middle/chunk:256B/inputs:8/256KiB", 1, 256, 8, 256 * KiB},
                   Config{"last/chunk:4096B/inputs:2/64MiB", 2, 4096, 2, 64 * MiB}}) {
    if (!ran.count("cat/" + c.name))
      continue;
    auto xs = make_inputs(c);
    std::vector<refcat::AnyTensor> erased(xs.begin(), xs.end());
    const int reps = c.total >= MiB ? 3 : 2000;
    std::vector<double> ts, tr, ratio;
    using clock = std::chrono::steady_clock;
    for (int round = 0; round < 31; ++round) {
      auto t0 = clock::now();
      for (int i = 0; i < reps; ++i)
        benchmark::DoNotOptimize(cat_static(c.axis, xs).data());
      auto t1 = clock::now();
      for (int i = 0; i < reps; ++i)
        benchmark::DoNotOptimize(refcat::cat(c.axis, erased).raw());
      auto t2 = clock::now();
      ts.push_back(std::chrono::duration<double>(t1 - t0).count() / reps);
      tr.push_back(std::chrono::duration<double>(t2 - t1).count() / reps);
      ratio.push_back(ts.back() / tr.back());
    }
    std::sort(ratio.begin(), ratio.end());
    std::printf("%-44s %10.2fus %10.2fus %8.3f %8.3f %8.3f\n", c.name.c_str(), median(ts) * 1e6,
                median(tr) * 1e6, ratio.front(), median(ratio), ratio.back());
  }
  std::printf("(ratio = static time / runtime time: below 1 means the compile-time form is faster)\n");
}

// The target shapes (chunks of at least 64 B, at least 64 MiB) once more,
// memcpy, cat and split alternated call by call, so that all three see the
// same machine: on a shared VM the bandwidth left to this process changes
// between the separate benchmarks above (the same shape measured 49-89% of
// memcpy there on one day). The rotation changes which one goes first. Only
// shapes whose cat ran (`--benchmark_filter` selects).
void interleaved_memcpy_ratio(const std::map<std::string, double> &ran) {
  constexpr int kRounds = 21;
  std::printf("\nvs memcpy, interleaved (one call each per round, %d rounds): the target shapes\n",
              kRounds);
  std::printf("%-44s %8s %8s %8s   %8s %8s %8s\n", "config", "cat min", "median", "max",
              "split min", "median", "max");
  for (const Config &c : configs()) {
    if (c.chunk < 64 || c.total < (index_t(64) << 20) || !ran.count("cat/" + c.name))
      continue;
    auto xs = make_inputs(c);
    F3 out = cat_static(c.axis, xs);
    std::vector<std::byte *> dst;
    const refcat::CopyPlan plan = split_plan(c, xs, dst);
    std::vector<std::byte> a(c.total, std::byte{1}), b(c.total, std::byte{2});
    using clock = std::chrono::steady_clock;
    auto time = [](auto &&f) {
      const auto t0 = clock::now();
      f();
      benchmark::ClobberMemory();
      return std::chrono::duration<double>(clock::now() - t0).count();
    };
    std::vector<double> cat_ratio, split_ratio;
    for (int round = 0; round < kRounds; ++round) {
      double t[3];
      for (int k = 0; k < 3; ++k) {
        switch ((round + k) % 3) {
        case 0: t[0] = time([&] { std::memcpy(b.data(), a.data(), c.total); }); break;
        case 1: t[1] = time([&] { cat_into_static(c.axis, out, xs); }); break;
        default:
          t[2] = time([&] {
            refcat::cpu::split(plan, reinterpret_cast<const std::byte *>(out.data()), dst.data());
          });
        }
      }
      cat_ratio.push_back(t[0] / t[1]);
      split_ratio.push_back(t[0] / t[2]);
    }
    std::sort(cat_ratio.begin(), cat_ratio.end());
    std::sort(split_ratio.begin(), split_ratio.end());
    std::printf("%-44s %7.0f%% %7.0f%% %7.0f%%   %8.0f%% %7.0f%% %7.0f%%\n", c.name.c_str(),
                100 * cat_ratio.front(), 100 * median(cat_ratio), 100 * cat_ratio.back(),
                100 * split_ratio.front(), 100 * median(split_ratio), 100 * split_ratio.back());
  }
}

} // namespace

int main(int argc, char **argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  Collector reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsummary: bandwidth relative to memcpy of the same bytes (same run)\n");
  std::printf("%-44s %10s %10s\n", "config", "cat", "split");
  for (const Config &c : configs()) {
    auto m = reporter.seconds.find("memcpy/" + c.name);
    auto f = reporter.seconds.find("cat/" + c.name);
    auto b = reporter.seconds.find("split/" + c.name);
    if (m == reporter.seconds.end() || f == reporter.seconds.end() || b == reporter.seconds.end())
      continue;
    std::printf("%-44s %9.0f%% %9.0f%%\n", c.name.c_str(), 100 * m->second / f->second,
                100 * m->second / b->second);
  }
  interleaved_memcpy_ratio(reporter.seconds);
  interleaved_form_ratio(reporter.seconds);
  benchmark::Shutdown();
}
