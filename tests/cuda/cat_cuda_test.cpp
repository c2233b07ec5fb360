// refcat's CUDA cat and split against the CPU kernels on the same plans:
// random shapes, every axis, 1-70 inputs (past one launch's 64), every
// vector width, and 32- and 64-bit indexing. Skipped without a GPU.
#include "refcat/cuda.h"
#include "refcat/refcat.h"

#include "random_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace {

using refcat::index_t;
using refcat::testing::random_plan;

#define REQUIRE_GPU()                                                          \
  do {                                                                         \
    if (!refcat::cuda::device_available())                                     \
      GTEST_SKIP() << "no CUDA device visible";                                \
  } while (0)

// Runs `plan` on the CPU and the GPU over random inputs whose device copies
// start `misalign` bytes into their buffers; compares forward and backward.
void compare(const refcat::CopyPlan &plan, std::mt19937 &rng, std::size_t misalign = 0) {
  const std::size_t n = plan.inputs();
  std::vector<std::vector<std::byte>> inputs(n);
  std::vector<refcat::cuda::DeviceBuffer> device_inputs;
  std::vector<const std::byte *> host_src;
  std::vector<const void *> device_src;
  for (std::size_t i = 0; i < n; ++i) {
    const auto bytes = static_cast<std::size_t>(plan.outer * plan.inner_bytes[i]);
    inputs[i].resize(bytes);
    for (auto &b : inputs[i])
      b = static_cast<std::byte>(rng());
    device_inputs.emplace_back(bytes + misalign);
    host_src.push_back(inputs[i].data());
  }
  // Upload at the offset through a staging buffer.
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::byte> staged(misalign + inputs[i].size());
    std::copy(inputs[i].begin(), inputs[i].end(), staged.begin() + misalign);
    device_inputs[i].upload(staged.data(), staged.size());
    device_src.push_back(static_cast<char *>(device_inputs[i].get()) + misalign);
  }
  const auto total = static_cast<std::size_t>(plan.total_bytes());
  std::vector<std::byte> expected(total);
  refcat::cpu::cat(plan, host_src.data(), expected.data());

  refcat::cuda::DeviceBuffer out(total);
  refcat::cuda::cat(plan, device_src.data(), out.get());
  refcat::cuda::synchronize();
  std::vector<std::byte> got(total);
  out.download(got.data(), total);
  ASSERT_EQ(got, expected) << "forward, " << n << " inputs, width "
                           << refcat::cuda::vector_width(plan, device_src.data(), out.get());

  std::vector<refcat::cuda::DeviceBuffer> parts;
  std::vector<void *> dst;
  for (std::size_t i = 0; i < n; ++i) {
    parts.emplace_back(inputs[i].size());
    dst.push_back(parts.back().get());
  }
  refcat::cuda::split(plan, out.get(), dst.data());
  refcat::cuda::synchronize();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<std::byte> part(inputs[i].size());
    parts[i].download(part.data(), part.size());
    ASSERT_EQ(part, inputs[i]) << "backward, input " << i;
  }
}

TEST(CudaCat, MatchesCpuOverRandomShapes) {
  REQUIRE_GPU();
  std::mt19937 rng(7);
  for (auto type : {refcat::dtype::f32, refcat::dtype::f64, refcat::dtype::i8, refcat::dtype::f16})
    for (int rank = 1; rank <= 5; ++rank)
      for (int axis = 0; axis <= rank + 1; ++axis)
        for (std::size_t n : {1, 2, 3, 8})
          compare(random_plan(rng, n, rank, axis, type), rng);
}

TEST(CudaCat, MoreInputsThanOneLaunchTakes) {
  REQUIRE_GPU();
  std::mt19937 rng(8);
  compare(random_plan(rng, 70, 2, 1, refcat::dtype::f32), rng);
}

TEST(CudaCat, MisalignedPointersFallBackToNarrowerCopies) {
  REQUIRE_GPU();
  std::mt19937 rng(9);
  for (std::size_t misalign : {1, 2, 4, 8})
    compare(random_plan(rng, 3, 2, 1, refcat::dtype::f32, 40), rng, misalign);
}

TEST(CudaCat, LargeCopyUses64BitIndicesCorrectly) {
  REQUIRE_GPU();
  std::mt19937 rng(10);
  // 2^31 one-byte units: past 32-bit indexing at width 1.
  std::vector<index_t> a{1 << 16, 1 << 14}, b{1 << 16, (1 << 14) + 1};
  refcat::ShapeRef refs[] = {{a.data(), 2, refcat::dtype::i8}, {b.data(), 2, refcat::dtype::i8}};
  compare(refcat::plan_cat("test", refs, 2, 1), rng);
}

} // namespace
