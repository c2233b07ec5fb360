// refcat's CUDA cat and split without a GPU: the launch plans of
// refcat/cuda_launch.h, and the kernel's per-thread function run on the host
// for every (launch, input, block, thread, grid-stride step) the plan makes,
// exactly as the kernel calls it. Every output byte must be written exactly
// once and equal the CPU cat; split must give the inputs back. The plans
// cover ranks 1-5, every axis, 1-130 inputs (three launches), empty inputs,
// odd sizes, misaligned pointers that force each vector width, and a copy
// past 32-bit indexing (simulated: its pointers are never dereferenced).
#include "refcat/cuda_launch.h"
#include "refcat/refcat.h"

#include "random_plan.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>

namespace {

using refcat::index_t;
using refcat::testing::random_plan;
namespace rc = refcat::cuda;

constexpr int kH200Sms = 132;

// Runs every thread of every launch of `plan`, as the kernel would, calling
// `unit(whole, w, part, u)` for each unit; returns the plan it ran.
template <class Unit>
rc::LaunchPlan simulate(const refcat::CopyPlan &plan, char *const *parts, char *whole,
                        int sm_count, Unit unit) {
  rc::LaunchPlan launches = rc::plan_launches(plan, parts, whole, sm_count);
  rc::dispatch(launches.width, launches.index64, [&](auto v, auto i) {
    using V = typename decltype(v)::type;
    using I = typename decltype(i)::type;
    for (const rc::Launch &l : launches.launches)
      for (int y = 0; y < l.inputs; ++y)
        for (unsigned x = 0; x < l.blocks; ++x)
          for (unsigned t = 0; t < rc::kThreadsPerBlock; ++t)
            rc::thread_copy<V, I>(l.meta, y, x, t, l.blocks, rc::kThreadsPerBlock, whole,
                                  [&](V *w_base, I w, V *p_base, I u) {
                                    unit(w_base, w, p_base, u, sizeof(V));
                                  });
  });
  return launches;
}

// Host buffers for a plan's inputs and output, each starting `misalign`
// bytes past a 16-byte boundary, the inputs filled with random bytes.
struct Buffers {
  std::vector<std::vector<std::byte>> storage;
  std::vector<std::byte *> inputs;
  std::vector<char *> parts;
  std::vector<std::byte> whole_storage;
  std::byte *whole = nullptr;

  Buffers(const refcat::CopyPlan &plan, std::mt19937 &rng, std::size_t misalign) {
    auto place = [&](std::vector<std::byte> &v, std::size_t bytes) {
      v.assign(bytes + misalign + 16, std::byte{0});
      auto p = reinterpret_cast<std::uintptr_t>(v.data());
      p = (p + 15) / 16 * 16 + misalign;
      return reinterpret_cast<std::byte *>(p);
    };
    storage.resize(plan.inputs());
    for (std::size_t i = 0; i < plan.inputs(); ++i) {
      const auto bytes = static_cast<std::size_t>(plan.outer * plan.inner_bytes[i]);
      inputs.push_back(place(storage[i], bytes));
      for (std::size_t b = 0; b < bytes; ++b)
        inputs[i][b] = static_cast<std::byte>(rng());
      parts.push_back(reinterpret_cast<char *>(inputs[i]));
    }
    whole = place(whole_storage, static_cast<std::size_t>(plan.total_bytes()));
  }
  std::size_t part_bytes(const refcat::CopyPlan &plan, std::size_t i) const {
    return static_cast<std::size_t>(plan.outer * plan.inner_bytes[i]);
  }
};

// Counts writes per byte of the destination, then does what the kernel does.
template <bool Forward> struct CountingMove {
  const refcat::CopyPlan &plan;
  const std::vector<char *> &parts;
  char *whole;
  std::vector<int> &whole_writes;               // forward
  std::vector<std::vector<int>> &part_writes;   // backward

  template <class V, class I>
  void operator()(V *w_base, I w, V *p_base, I u, std::size_t width) const {
    ASSERT_EQ(reinterpret_cast<char *>(w_base), whole);
    std::size_t input = 0;
    while (input < parts.size() && reinterpret_cast<char *>(p_base) != parts[input])
      ++input;
    ASSERT_LT(input, parts.size()) << "a part pointer the plan does not have";
    // A GPU faults on a vector access that is not aligned to its size.
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(w_base + w) % width, 0u) << "whole unit " << w;
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p_base + u) % width, 0u) << "part unit " << u;
    const std::size_t w_byte = static_cast<std::size_t>(w) * width;
    const std::size_t u_byte = static_cast<std::size_t>(u) * width;
    ASSERT_LE(u_byte + width, static_cast<std::size_t>(plan.outer * plan.inner_bytes[input]));
    ASSERT_LE(w_byte + width, static_cast<std::size_t>(plan.total_bytes()));
    for (std::size_t b = 0; b < width; ++b) {
      if (Forward)
        ++whole_writes[w_byte + b];
      else
        ++part_writes[input][u_byte + b];
    }
    rc::MoveUnit<Forward>{}(w_base, w, p_base, u);
  }
};

std::string describe(const refcat::CopyPlan &plan, const rc::LaunchPlan &l) {
  return std::to_string(plan.inputs()) + " inputs, outer " + std::to_string(plan.outer) +
         ", row " + std::to_string(plan.row_bytes) + " B, width " + std::to_string(l.width) +
         ", " + std::to_string(l.launches.size()) + " launches";
}

// Simulates cat and split of `plan` and checks them against the CPU.
// Returns the vector width the plan used.
int check_plan(const refcat::CopyPlan &plan, std::mt19937 &rng, std::size_t misalign = 0,
               int sm_count = kH200Sms) {
  Buffers buf(plan, rng, misalign);
  const auto total = static_cast<std::size_t>(plan.total_bytes());
  std::vector<std::byte> expected(total);
  std::vector<const std::byte *> src(buf.inputs.begin(), buf.inputs.end());
  refcat::cpu::cat(plan, src.data(), expected.data());

  std::vector<int> whole_writes(total, 0);
  std::vector<std::vector<int>> part_writes(plan.inputs());
  char *whole = reinterpret_cast<char *>(buf.whole);
  const rc::LaunchPlan launches =
      simulate(plan, buf.parts.data(), whole, sm_count,
               CountingMove<true>{plan, buf.parts, whole, whole_writes, part_writes});
  const std::string what = describe(plan, launches);
  for (std::size_t b = 0; b < total; ++b)
    if (whole_writes[b] != 1) {
      ADD_FAILURE() << "cat: output byte " << b << " written " << whole_writes[b]
                    << " times (" << what << ")";
      return launches.width;
    }
  EXPECT_EQ(0, std::memcmp(buf.whole, expected.data(), total)) << "cat: " << what;

  // Split into fresh parts (same alignment) and compare with the inputs.
  Buffers back(plan, rng, misalign);
  for (std::size_t i = 0; i < plan.inputs(); ++i) {
    std::memset(back.inputs[i], 0, back.part_bytes(plan, i));
    part_writes[i].assign(back.part_bytes(plan, i), 0);
  }
  std::memcpy(back.whole, expected.data(), total);
  char *back_whole = reinterpret_cast<char *>(back.whole);
  simulate(plan, back.parts.data(), back_whole, sm_count,
           CountingMove<false>{plan, back.parts, back_whole, whole_writes, part_writes});
  for (std::size_t i = 0; i < plan.inputs(); ++i) {
    for (std::size_t b = 0; b < part_writes[i].size(); ++b)
      if (part_writes[i][b] != 1) {
        ADD_FAILURE() << "split: input " << i << " byte " << b << " written "
                      << part_writes[i][b] << " times (" << what << ")";
        return launches.width;
      }
    EXPECT_EQ(0, std::memcmp(back.inputs[i], buf.inputs[i], back.part_bytes(plan, i)))
        << "split: input " << i << " (" << what << ")";
  }
  return launches.width;
}

TEST(CudaLaunch, EveryRankAxisAndDtypeMatchesCpu) {
  std::mt19937 rng(17);
  for (auto type : {refcat::dtype::f32, refcat::dtype::f64, refcat::dtype::i8, refcat::dtype::f16})
    for (int rank = 1; rank <= 5; ++rank)
      for (int axis = 0; axis <= rank + 1; ++axis)
        for (std::size_t n : {1, 2, 3, 8})
          check_plan(random_plan(rng, n, rank, axis, type), rng);
}

TEST(CudaLaunch, UpToHundredThirtyInputsSplitIntoLaunchesOfSixtyFour) {
  std::mt19937 rng(18);
  for (std::size_t n : {1, 2, 63, 64, 65, 127, 128, 129, 130}) {
    const auto plan = random_plan(rng, n, 3, 1, refcat::dtype::f32, 6);
    Buffers buf(plan, rng, 0);
    const auto l = rc::plan_launches(plan, buf.parts.data(),
                                     reinterpret_cast<char *>(buf.whole), kH200Sms);
    std::size_t covered = 0;
    for (const auto &launch : l.launches) {
      EXPECT_LE(launch.inputs, rc::kMaxLaunchInputs);
      EXPECT_EQ(launch.first % rc::kMaxLaunchInputs, 0u);
      covered += static_cast<std::size_t>(launch.inputs);
    }
    if (plan.total_bytes() > 0) {
      // Launches whose parts are all empty are left out; none is when the
      // plan has at most one all-empty group, so count the groups.
      std::size_t nonempty_inputs = 0;
      for (std::size_t g = 0; g < n; g += rc::kMaxLaunchInputs) {
        bool any = false;
        for (std::size_t i = g; i < std::min(n, g + rc::kMaxLaunchInputs); ++i)
          any = any || plan.inner_bytes[i] > 0;
        if (any)
          nonempty_inputs += std::min<std::size_t>(rc::kMaxLaunchInputs, n - g);
      }
      EXPECT_EQ(covered, nonempty_inputs) << n << " inputs";
    }
    check_plan(plan, rng);
    // One SM: the fewest blocks, so every thread takes many grid-stride steps.
    check_plan(plan, rng, 0, 1);
  }
}

TEST(CudaLaunch, EmptyInputsAndEmptyOutputs) {
  std::mt19937 rng(19);
  std::vector<index_t> a{3, 0, 5}, b{3, 4, 5}, c{0, 4, 5};
  refcat::ShapeRef some_empty[] = {{a.data(), 3, refcat::dtype::f32},
                                   {b.data(), 3, refcat::dtype::f32},
                                   {a.data(), 3, refcat::dtype::f32}};
  check_plan(refcat::plan_cat("t", some_empty, 3, 1), rng);
  refcat::ShapeRef all_empty[] = {{a.data(), 3, refcat::dtype::f32},
                                  {a.data(), 3, refcat::dtype::f32}};
  const auto empty = refcat::plan_cat("t", all_empty, 2, 1);
  EXPECT_TRUE(rc::plan_launches(empty, nullptr, nullptr, kH200Sms).launches.empty());
  refcat::ShapeRef no_rows[] = {{c.data(), 3, refcat::dtype::f32},
                                {c.data(), 3, refcat::dtype::f32}};
  const auto rowless = refcat::plan_cat("t", no_rows, 2, 1);
  EXPECT_TRUE(rc::plan_launches(rowless, nullptr, nullptr, kH200Sms).launches.empty());
  check_plan(rowless, rng);
  // An empty group of 64 between two non-empty ones gets no launch.
  std::vector<index_t> full{2, 3}, none{2, 0};
  std::vector<refcat::ShapeRef> refs;
  for (int i = 0; i < 130; ++i)
    refs.push_back({(i >= 64 && i < 128) ? none.data() : full.data(), 2, refcat::dtype::i8});
  const auto gap = refcat::plan_cat("t", refs.data(), refs.size(), 1);
  Buffers buf(gap, rng, 0);
  const auto l = rc::plan_launches(gap, buf.parts.data(), reinterpret_cast<char *>(buf.whole),
                                   kH200Sms);
  ASSERT_EQ(l.launches.size(), 2u);
  EXPECT_EQ(l.launches[0].first, 0u);
  EXPECT_EQ(l.launches[1].first, 128u);
  check_plan(gap, rng);
}

TEST(CudaLaunch, OddSizesAndMisalignedPointersForceEachWidth) {
  std::mt19937 rng(20);
  // 16-byte chunks everywhere: the pointers' alignment decides the width.
  std::vector<index_t> a{3, 8}, b{3, 4};
  refcat::ShapeRef wide[] = {{a.data(), 2, refcat::dtype::f32}, {b.data(), 2, refcat::dtype::f32}};
  const auto plan = refcat::plan_cat("t", wide, 2, 1);
  const std::pair<std::size_t, int> cases[] = {{0, 16}, {8, 8}, {4, 4}, {2, 2}, {1, 1}, {3, 1}};
  for (auto [misalign, width] : cases)
    EXPECT_EQ(check_plan(plan, rng, misalign), width) << "misaligned by " << misalign;
  // Aligned pointers, chunk sizes that allow only narrower units.
  for (auto [elem_type, inner, width] :
       {std::tuple{refcat::dtype::f64, index_t{1}, 8}, std::tuple{refcat::dtype::f32, index_t{3}, 4},
        std::tuple{refcat::dtype::f16, index_t{5}, 2}, std::tuple{refcat::dtype::i8, index_t{7}, 1}}) {
    std::vector<index_t> x{5, inner}, y{5, 4};
    refcat::ShapeRef refs[] = {{y.data(), 2, elem_type}, {x.data(), 2, elem_type}};
    EXPECT_EQ(check_plan(refcat::plan_cat("t", refs, 2, 1), rng), width)
        << refcat::dtype_name(elem_type) << ", chunk of " << inner;
  }
  // Larger odd shapes with a random misalignment, every axis.
  for (int axis = 0; axis < 3; ++axis)
    for (std::size_t misalign : {0, 1, 2, 4, 8})
      check_plan(random_plan(rng, 5, 3, axis, refcat::dtype::i8, 23), rng, misalign);
}

TEST(CudaLaunch, GridBlocksAreCappedPerSmAndCoverSmallCopies) {
  EXPECT_EQ(rc::grid_blocks(1, 1, kH200Sms), 1u);
  EXPECT_EQ(rc::grid_blocks(256, 1, kH200Sms), 1u);
  EXPECT_EQ(rc::grid_blocks(257, 1, kH200Sms), 2u);
  EXPECT_EQ(rc::grid_blocks(1ull << 40, 1, kH200Sms), unsigned(kH200Sms * rc::kBlocksPerSm));
  EXPECT_EQ(rc::grid_blocks(1ull << 40, 64, kH200Sms), unsigned(kH200Sms * rc::kBlocksPerSm / 64));
  EXPECT_EQ(rc::grid_blocks(1ull << 40, 64, 1), 1u); // never zero blocks
}

// A copy of more than 2^31 units takes the 64-bit path. The simulation runs
// every unit of it without memory behind the pointers: it records which
// whole units are written (one bit each) and checks every (part, unit) pair
// against the plan's own description of where a part's row chunk goes.
TEST(CudaLaunch, PastThirtyTwoBitIndicesEveryUnitOnce) {
  // 2^16 rows of (2^15 + 1) one-byte units: 2^31 + 2^16 units in all.
  std::vector<index_t> a{1 << 16, 1 << 14}, b{1 << 16, (1 << 14) + 1};
  refcat::ShapeRef refs[] = {{a.data(), 2, refcat::dtype::i8}, {b.data(), 2, refcat::dtype::i8}};
  const auto plan = refcat::plan_cat("t", refs, 2, 1);
  char *parts[] = {reinterpret_cast<char *>(std::uintptr_t{0x100000}),
                   reinterpret_cast<char *>(std::uintptr_t{0x200000})};
  char *whole = reinterpret_cast<char *>(std::uintptr_t{0x300000});
  const auto units = static_cast<std::uint64_t>(plan.total_bytes());
  std::vector<std::uint64_t> seen((units + 63) / 64, 0);
  std::uint64_t visits = 0, bad = 0;
  const auto l = simulate(plan, parts, whole, kH200Sms,
                          [&](auto *w_base, auto w, auto *p_base, auto u, std::size_t) {
    bad += reinterpret_cast<char *>(w_base) != whole;
    const std::size_t i = reinterpret_cast<char *>(p_base) == parts[0] ? 0 : 1;
    const auto inner = static_cast<std::uint64_t>(plan.inner_bytes[i]);
    const auto expect = static_cast<std::uint64_t>(u) / inner * static_cast<std::uint64_t>(plan.row_bytes) +
                        static_cast<std::uint64_t>(plan.dst_offset[i]) +
                        static_cast<std::uint64_t>(u) % inner;
    const auto got = static_cast<std::uint64_t>(w);
    bad += got != expect || got >= units || (seen[got / 64] >> (got % 64) & 1);
    if (got < units)
      seen[got / 64] |= std::uint64_t{1} << (got % 64);
    ++visits;
  });
  ASSERT_TRUE(l.index64);
  ASSERT_EQ(l.width, 1);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(visits, units);
  for (std::size_t k = 0; k + 1 < seen.size(); ++k)
    ASSERT_EQ(seen[k], ~std::uint64_t{0}) << "whole units " << k * 64 << "..";
}

// Beyond 2^32 units a 32-bit index would wrap. Too large to enumerate, so a
// sample of threads of each part (the first, middle and last of the grid,
// and the owner of the part's last unit) runs its whole grid-stride loop in
// the kernel instance the plan picks: every unit it gets lies in its
// progression and maps to the place the plan says, up to the part's end.
TEST(CudaLaunch, PastFourBillionUnitsSampledThreadsAddressCorrectly) {
  // 2^20 rows of 2^14 + 3 * 2^14 sixteen-byte units: parts of 2^34 and
  // 3 * 2^34 units, a whole of 2^40 bytes.
  std::vector<index_t> a{1 << 20, 1 << 16}, b{1 << 20, 3 << 16};
  refcat::ShapeRef refs[] = {{a.data(), 2, refcat::dtype::f32}, {b.data(), 2, refcat::dtype::f32}};
  const auto plan = refcat::plan_cat("t", refs, 2, 1);
  alignas(16) static char base[16];
  char *parts[] = {base, base};
  const auto l = rc::plan_launches(plan, parts, base, kH200Sms);
  ASSERT_EQ(l.width, 16);
  ASSERT_EQ(l.launches.size(), 1u);
  const rc::Launch &launch = l.launches[0];
  const std::uint64_t stride = std::uint64_t{launch.blocks} * rc::kThreadsPerBlock;
  std::uint64_t reached_last = 0, bad = 0, visits = 0;
  rc::dispatch(l.width, l.index64, [&](auto v, auto i) {
    using V = typename decltype(v)::type;
    using I = typename decltype(i)::type;
    for (int y = 0; y < launch.inputs; ++y) {
      const std::uint64_t inner = static_cast<std::uint64_t>(plan.inner_bytes[y]) / 16;
      const std::uint64_t total = static_cast<std::uint64_t>(plan.outer) * inner;
      const std::uint64_t row = static_cast<std::uint64_t>(plan.row_bytes) / 16;
      const std::uint64_t offset = static_cast<std::uint64_t>(plan.dst_offset[y]) / 16;
      ASSERT_GT(total, std::uint64_t{1} << 33);
      for (std::uint64_t id : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{255},
                               stride / 2, stride - 1, (total - 1) % stride}) {
        const auto x = static_cast<unsigned>(id / rc::kThreadsPerBlock);
        const auto t = static_cast<unsigned>(id % rc::kThreadsPerBlock);
        std::uint64_t next = id;
        rc::thread_copy<V, I>(launch.meta, y, x, t, launch.blocks, rc::kThreadsPerBlock, base,
                              [&](V *, I w, V *, I u) {
                                const std::uint64_t e = next; // in 64 bits
                                next += stride;
                                bad += u != e;
                                bad += w != e / inner * row + offset + e % inner;
                                reached_last += e == total - 1;
                                ++visits;
                              });
        bad += next < total; // the thread stopped before its last unit
      }
    }
  });
  EXPECT_TRUE(l.index64);
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(reached_last, 2u); // each part's last unit, by its owner
  EXPECT_GT(visits, 6 * ((std::uint64_t{1} << 34) / stride)); // every step ran
}

TEST(CudaLaunch, IndexWidthSwitchesAtTwoToTheThirtyOne) {
  // Exactly 2^31 - 1 and 2^31 units of one byte.
  for (auto [rows, index64] : {std::pair{index_t{(1u << 31) - 1}, false}, std::pair{index_t{1} << 31, true}}) {
    std::vector<index_t> a{rows, 1};
    refcat::ShapeRef refs[] = {{a.data(), 2, refcat::dtype::i8}};
    char *parts[] = {reinterpret_cast<char *>(std::uintptr_t{1})};
    const auto l = rc::plan_launches(refcat::plan_cat("t", refs, 1, 1), parts,
                                     reinterpret_cast<char *>(std::uintptr_t{1}), kH200Sms);
    EXPECT_EQ(l.index64, index64) << rows << " units";
  }
}

} // namespace
