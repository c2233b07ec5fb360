// refcat's cat and its pullback against a naive element-by-element
// reference: random shapes of rank 1-5, every axis up to two past the rank,
// 1-8 inputs, empty inputs, five dtypes, both axis forms; and every error.
#include "refcat/refcat.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>

namespace {

using refcat::AnyTensor;
using refcat::index_t;
using refcat::Tensor;

// Element `flat` (row-major over `shape`) of the concatenation of `xs` along
// `axis`, computed from coordinates: the input whose axis range holds the
// coordinate, read at the same coordinates shifted along the axis.
std::vector<std::byte> naive_cat(const std::vector<AnyTensor> &xs, int axis) {
  const std::size_t elem = refcat::dtype_size(xs[0].type());
  const int in_rank = xs[0].rank();
  const int out_rank = std::max(in_rank, axis + 1);
  auto extent = [&](const AnyTensor &x, int d) { return d < in_rank ? x.extent(d) : index_t(1); };
  std::vector<index_t> shape(out_rank);
  for (int d = 0; d < out_rank; ++d)
    shape[d] = extent(xs[0], d);
  shape[axis] = 0;
  for (const auto &x : xs)
    shape[axis] += extent(x, axis);
  index_t total = 1;
  for (index_t e : shape)
    total *= e;
  std::vector<std::byte> out(static_cast<std::size_t>(total) * elem);
  std::vector<index_t> idx(out_rank);
  for (index_t flat = 0; flat < total; ++flat) {
    index_t rest = flat;
    for (int d = out_rank; d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    index_t along = idx[axis];
    std::size_t which = 0;
    while (along >= extent(xs[which], axis))
      along -= extent(xs[which++], axis);
    const AnyTensor &x = xs[which];
    index_t src = 0;
    for (int d = 0; d < in_rank; ++d)
      src = src * x.extent(d) + (d == axis ? along : idx[d]);
    std::memcpy(out.data() + flat * elem, x.raw() + src * elem, elem);
  }
  return out;
}

template <class T> T random_value(std::mt19937 &rng) {
  if constexpr (std::is_floating_point_v<T>)
    return std::uniform_real_distribution<T>(-100, 100)(rng);
  else
    return static_cast<T>(rng());
}

template <class T, std::size_t R>
Tensor<T, R> random_tensor(std::mt19937 &rng, std::array<index_t, R> shape) {
  Tensor<T, R> t(shape);
  for (index_t i = 0; i < t.size(); ++i)
    t[i] = random_value<T>(rng);
  return t;
}

std::vector<std::byte> bytes_of(const AnyTensor &t) {
  return std::vector<std::byte>(t.raw(), t.raw() + t.bytes());
}

// N random inputs sharing every extent but the axis one; extents 0-3 so
// that empty inputs and empty results occur.
template <class T, std::size_t R, std::size_t N>
std::array<Tensor<T, R>, N> random_inputs(std::mt19937 &rng, int axis) {
  std::array<index_t, R> base{};
  for (auto &e : base)
    e = static_cast<index_t>(rng() % 4);
  std::array<Tensor<T, R>, N> xs;
  for (auto &x : xs) {
    auto shape = base;
    if (axis < static_cast<int>(R))
      shape[axis] = static_cast<index_t>(rng() % 4);
    x = random_tensor<T, R>(rng, shape);
  }
  return xs;
}

template <int A, class T, std::size_t R, std::size_t N> void check_forms(std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "rank " << R << ", axis " << A << ", " << N
                                  << " inputs, " << refcat::dtype_name(refcat::dtype_of<T>::value));
  auto xs = random_inputs<T, R, N>(rng, A);
  std::vector<AnyTensor> erased(xs.begin(), xs.end());
  const std::vector<std::byte> expected = naive_cat(erased, A);

  auto stable = std::apply([](const auto &...x) { return refcat::cat<A>(x...); }, xs);
  static_assert(decltype(stable)::rank == refcat::cat_rank<R, A>);
  auto tagged = std::apply([](const auto &...x) { return refcat::cat(refcat::axis_c<A>, x...); }, xs);
  AnyTensor runtime = std::apply([](const auto &...x) { return refcat::cat(A, x...); }, xs);
  ASSERT_EQ(runtime.rank(), static_cast<int>(refcat::cat_rank<R, A>));
  EXPECT_EQ(bytes_of(stable), expected);
  EXPECT_EQ(bytes_of(tagged), expected);
  EXPECT_EQ(bytes_of(runtime), expected);
  EXPECT_EQ(std::vector<index_t>(stable.shape().begin(), stable.shape().end()), runtime.shape());

  // The pullback: views equal the naive split (the inputs), alias the
  // cotangent, and the materialising variant equals them.
  auto [y, pullback] = std::apply([](const auto &...x) { return refcat::rrule_cat<A>(x...); }, xs);
  EXPECT_EQ(bytes_of(y), expected);
  auto views = pullback(y);
  auto copies = pullback.materialize(y);
  auto [ye, erased_pullback] = refcat::rrule_cat(A, erased);
  std::vector<std::any> erased_parts = erased_pullback(ye);
  ASSERT_EQ(erased_parts.size(), N);
  const auto *begin = y.data(), *end = y.data() + y.size();
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          const auto &v = std::get<I>(views);
          EXPECT_EQ(v.shape(), xs[I].shape());
          EXPECT_EQ(bytes_of(refcat::materialize(v)), bytes_of(xs[I]));
          EXPECT_EQ(bytes_of(std::get<I>(copies)), bytes_of(xs[I]));
          EXPECT_EQ(bytes_of(std::any_cast<AnyTensor>(erased_parts[I])), bytes_of(xs[I]));
          if (v.size() > 0) {
            EXPECT_GE(v.data(), begin);
            EXPECT_LT(v.data(), end);
          }
        }(),
        ...);
  }(std::make_index_sequence<N>{});
}

template <class T, std::size_t R, int... A> void check_axes(std::mt19937 &rng, std::integer_sequence<int, A...>) {
  (check_forms<A, T, R, 1>(rng), ...);
  (check_forms<A, T, R, 2>(rng), ...);
  (check_forms<A, T, R, 3>(rng), ...);
  (check_forms<A, T, R, 8>(rng), ...);
}

template <class T> void check_dtype() {
  std::mt19937 rng(1234);
  for (int round = 0; round < 3; ++round) {
    check_axes<T, 1>(rng, std::make_integer_sequence<int, 3>{});
    check_axes<T, 2>(rng, std::make_integer_sequence<int, 4>{});
    check_axes<T, 3>(rng, std::make_integer_sequence<int, 5>{});
    check_axes<T, 4>(rng, std::make_integer_sequence<int, 6>{});
    check_axes<T, 5>(rng, std::make_integer_sequence<int, 7>{});
  }
}

TEST(Cat, Float32MatchesNaive) { check_dtype<float>(); }
TEST(Cat, Float64MatchesNaive) { check_dtype<double>(); }
TEST(Cat, Int32MatchesNaive) { check_dtype<std::int32_t>(); }
TEST(Cat, Int8MatchesNaive) { check_dtype<std::int8_t>(); }
TEST(Cat, HalfAsUint16MatchesNaive) { check_dtype<std::uint16_t>(); }

TEST(Cat, RuntimeFormTakesAnyNumberOfInputs) {
  std::mt19937 rng(99);
  for (std::size_t n = 1; n <= 8; ++n)
    for (int axis = 0; axis < 4; ++axis) {
      std::vector<AnyTensor> xs;
      // Only the axis extent varies (past the rank, nothing does).
      for (std::size_t i = 0; i < n; ++i) {
        const auto varying = static_cast<index_t>(rng() % 3);
        xs.push_back(random_tensor<float, 2>(
            rng, {axis == 0 ? varying : 3, axis == 1 ? varying : 2}));
      }
      EXPECT_EQ(bytes_of(refcat::cat(axis, xs)), naive_cat(xs, axis)) << n << " inputs, axis " << axis;
    }
}

TEST(Cat, LargeCopiesTakeTheThreadedPath) {
  refcat::CpuOptions saved = refcat::cpu_options();
  refcat::cpu_options() = {4, 1};
  std::mt19937 rng(5);
  for (auto shape : {std::array<index_t, 2>{1, 1000}, std::array<index_t, 2>{257, 3}}) {
    auto a = random_tensor<float, 2>(rng, shape), b = random_tensor<float, 2>(rng, shape);
    std::vector<AnyTensor> xs{a, b};
    for (int axis = 0; axis < 2; ++axis) {
      EXPECT_EQ(bytes_of(refcat::cat(axis, xs)), naive_cat(xs, axis));
      auto [y, pb] = refcat::rrule_cat<1>(a, b);
      auto [ca, cb] = pb.materialize(y);
      EXPECT_EQ(bytes_of(ca), bytes_of(a));
      EXPECT_EQ(bytes_of(cb), bytes_of(b));
    }
  }
  refcat::cpu_options() = saved;
}

// The plan of a cat of rank-2 tensors along axis 1; `parts` gets their
// buffers.
refcat::CopyPlan plan_along_1(const std::vector<AnyTensor> &xs, std::vector<std::byte *> &parts) {
  std::vector<refcat::ShapeRef> refs;
  for (const AnyTensor &x : xs) {
    refs.push_back({x.shape().data(), 2, x.type()});
    parts.push_back(const_cast<std::byte *>(x.raw()));
  }
  return refcat::plan_cat("test", refs.data(), refs.size(), 1);
}

TEST(Cat, LargeCopiesOfWholeCacheLinesBypassTheCache) {
  refcat::CpuOptions saved = refcat::cpu_options();
  std::mt19937 rng(7);
  // Chunks of 64 and 128 bytes (whole lines): streamed; 64 + 12 bytes: not.
  auto a = random_tensor<float, 2>(rng, {37, 16}), b = random_tensor<float, 2>(rng, {37, 32}),
       c = random_tensor<float, 2>(rng, {37, 3});
  for (unsigned threads : {1u, 3u}) {
    refcat::cpu_options() = {threads, 1, 1};
    for (const auto &[xs, streamed] : {std::pair{std::vector<AnyTensor>{a, b}, true},
                                       std::pair{std::vector<AnyTensor>{a, c}, false}}) {
      std::vector<std::byte *> parts;
      const refcat::CopyPlan plan = plan_along_1(xs, parts);
      AnyTensor y = refcat::cat(1, xs);
      auto *whole = const_cast<std::byte *>(y.raw());
      namespace d = refcat::cpu::detail;
      EXPECT_EQ(d::stream_mode<true>(plan, parts.data(), whole),
                streamed ? d::Stream::lines : d::Stream::none);
      EXPECT_EQ(d::stream_mode<false>(plan, parts.data(), whole),
                streamed ? d::Stream::rows : d::Stream::none);
      EXPECT_EQ(bytes_of(y), naive_cat(xs, 1)) << threads << " threads";
      std::vector<Tensor<float, 2>> back{Tensor<float, 2>({37, xs[0].extent(1)}),
                                         Tensor<float, 2>({37, xs[1].extent(1)})};
      std::byte *dst[] = {reinterpret_cast<std::byte *>(back[0].data()),
                          reinterpret_cast<std::byte *>(back[1].data())};
      refcat::cpu::split(plan, whole, dst);
      EXPECT_EQ(bytes_of(back[0]), bytes_of(xs[0])) << threads << " threads";
      EXPECT_EQ(bytes_of(back[1]), bytes_of(xs[1])) << threads << " threads";
    }
  }
  refcat::cpu_options() = saved;
}

// Nine inputs of whole lines: streamed, each input's rows prefetched ahead
// (more than kPrefetchInputs inputs), over enough rows for several blocks
// and for the prefetch to reach the end of each thread's row range.
TEST(Cat, ManyInputsStreamedWithPrefetch) {
  refcat::CpuOptions saved = refcat::cpu_options();
  std::mt19937 rng(11);
  namespace d = refcat::cpu::detail;
  std::vector<AnyTensor> xs;
  for (int i = 0; i < 9; ++i)
    xs.push_back(random_tensor<float, 2>(rng, {1000, i % 3 == 2 ? 32 : 16}));
  ASSERT_GT(std::size_t(9), d::kPrefetchInputs);
  std::vector<std::byte *> parts;
  const refcat::CopyPlan plan = plan_along_1(xs, parts);
  ASSERT_GT(plan.outer, d::kStreamBlockBytes / plan.row_bytes + d::kPrefetchBytes / plan.row_bytes);
  const std::vector<std::byte> expected = naive_cat(xs, 1);
  for (unsigned threads : {1u, 3u}) {
    refcat::cpu_options() = {threads, 1, 1};
    AnyTensor y = refcat::cat(1, xs);
    auto *whole = const_cast<std::byte *>(y.raw());
    EXPECT_EQ(d::stream_mode<true>(plan, parts.data(), whole), d::Stream::lines);
    EXPECT_EQ(bytes_of(y), expected) << threads << " threads";
    std::vector<Tensor<float, 2>> back;
    std::vector<std::byte *> dst;
    for (const AnyTensor &x : xs) {
      back.emplace_back(Tensor<float, 2>::shape_type{1000, x.extent(1)});
      dst.push_back(reinterpret_cast<std::byte *>(back.back().data()));
    }
    refcat::cpu::split(plan, whole, dst.data());
    for (std::size_t i = 0; i < xs.size(); ++i)
      EXPECT_EQ(bytes_of(back[i]), bytes_of(xs[i])) << "input " << i << ", " << threads << " threads";
  }
  refcat::cpu_options() = saved;
}

TEST(Pullback, ViewsAliasTheCotangent) {
  Tensor<float, 2> a({2, 3}, 1.0f), b({2, 1}, 2.0f);
  auto [y, pullback] = refcat::rrule_cat<1>(a, b);
  auto [va, vb] = pullback(y);
  y(1, 3) = 42.0f; // input b's element (1, 0)
  EXPECT_EQ(vb(1, 0), 42.0f);
  EXPECT_EQ(vb.data(), y.data() + 3);
  EXPECT_EQ(va.strides(), (std::array<index_t, 2>{4, 1}));
  EXPECT_FALSE(va.is_contiguous());
}

TEST(Pullback, SplitInvertsCat) {
  std::mt19937 rng(3);
  auto t = random_tensor<double, 3>(rng, {2, 5, 3});
  auto parts = refcat::split(1, t, {2, 0, 3});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].size(), 0);
  EXPECT_EQ(bytes_of(refcat::cat<1>(parts[0], parts[1], parts[2])), bytes_of(t));
}

// ---- errors ------------------------------------------------------------

template <class F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const refcat::shape_error &e) {
    return e.what();
  }
  return "(no shape_error)";
}

TEST(Errors, RankMismatch) {
  Tensor<float, 2> a({2, 3});
  Tensor<float, 3> b({2, 3, 1});
  EXPECT_EQ(error_of([&] { refcat::cat(0, a, b); }),
            "refcat::cat: input 1 has rank 3, but input 0 has rank 2");
}

TEST(Errors, DtypeMismatch) {
  Tensor<float, 2> a({2, 3});
  Tensor<double, 2> b({2, 3});
  EXPECT_EQ(error_of([&] { refcat::cat(0, a, b); }),
            "refcat::cat: input 1 has dtype float64, but input 0 has dtype float32");
}

TEST(Errors, ExtentMismatchNamesInputAndDimension) {
  Tensor<float, 3> a({2, 3, 4}), b({2, 3, 4}), c({2, 5, 4});
  const std::string expected = "refcat::cat: input 2 has extent 5 in dimension 1, but input 0 "
                               "has extent 3 (only dimension 0, the axis, may differ)";
  EXPECT_EQ(error_of([&] { refcat::cat<0>(a, b, c); }), expected);
  EXPECT_EQ(error_of([&] { refcat::cat(refcat::axis_c<0>, a, b, c); }), expected);
  EXPECT_EQ(error_of([&] { refcat::cat(0, a, b, c); }), expected);
  EXPECT_EQ(error_of([&] { refcat::rrule_cat<0>(a, b, c); }), expected);
  // Past the rank every real dimension must agree.
  EXPECT_EQ(error_of([&] { refcat::cat<3>(a, c); }),
            "refcat::cat: input 1 has extent 5 in dimension 1, but input 0 has extent 3 "
            "(only dimension 3, the axis, may differ)");
}

TEST(Errors, AxisOutOfRange) {
  Tensor<float, 2> a({2, 3});
  EXPECT_EQ(error_of([&] { refcat::cat(-1, a, a); }),
            "refcat::cat: axis -1 is out of range: it must be in [0, 8)");
  EXPECT_EQ(error_of([&] { refcat::cat(8, a, a); }),
            "refcat::cat: axis 8 is out of range: it must be in [0, 8)");
  EXPECT_EQ(error_of([&] { refcat::rrule_cat(9, a, a); }),
            "refcat::cat: axis 9 is out of range: it must be in [0, 8)");
  EXPECT_EQ(error_of([&] { refcat::split(2, a, {1, 1}); }),
            "refcat::split: axis 2 is out of range: it must be in [0, 2)");
}

TEST(Errors, NoInputsAndEmptyHandles) {
  EXPECT_EQ(error_of([] { refcat::cat(0, std::vector<AnyTensor>{}); }),
            "refcat::cat: needs at least one input");
  EXPECT_EQ(error_of([] { refcat::cat(0, AnyTensor(), AnyTensor()); }),
            "refcat::cat: an input is an empty AnyTensor");
}

TEST(Errors, ConversionFromAnyTensor) {
  AnyTensor x = Tensor<float, 2>({2, 3});
  EXPECT_EQ(error_of([&] { Tensor<float, 3> t = x; }),
            "refcat: cannot convert an AnyTensor of rank 2 to a Tensor of rank 3");
  EXPECT_EQ(error_of([&] { Tensor<double, 2> t = x; }),
            "refcat: cannot convert an AnyTensor of dtype float32 to a Tensor of dtype float64");
  EXPECT_EQ(error_of([] { Tensor<float, 2> t = AnyTensor(); }),
            "refcat: cannot convert an empty AnyTensor to a Tensor");
  EXPECT_EQ(error_of([] { Tensor<float, 2> t({2, -1}); }),
            "refcat: extent -1 in dimension 1 is negative");
}

TEST(Errors, PullbackCotangentShape) {
  Tensor<float, 2> a({2, 3}), b({2, 1});
  auto [y, pullback] = refcat::rrule_cat<1>(a, b);
  EXPECT_EQ(error_of([&, &pb = pullback] { pb(Tensor<float, 2>({2, 3})); }),
            "refcat::rrule_cat: the cotangent has shape [2, 3], but the result had shape [2, 4]");
  auto [ye, erased] = refcat::rrule_cat(1, a, b);
  EXPECT_EQ(error_of([&, &pb = erased] { pb(Tensor<float, 2>({2, 3})); }),
            "refcat::rrule_cat: the cotangent has shape [2, 3], but the result had shape [2, 4]");
  EXPECT_EQ(error_of([&] { refcat::split(1, y, {1, 1}); }),
            "refcat::split: the pieces' extents add up to 2, but dimension 1 has extent 4");
}

} // namespace
