// A random CopyPlan for the kernel tests (CPU, CUDA on the host, CUDA on a
// GPU): `n` inputs of rank `rank` whose extents agree except along `axis`,
// each extent in [0, max_extent).
#ifndef REFCAT_TESTS_RANDOM_PLAN_H
#define REFCAT_TESTS_RANDOM_PLAN_H

#include "refcat/plan.h"

#include <random>
#include <vector>

namespace refcat::testing {

inline CopyPlan random_plan(std::mt19937 &rng, std::size_t n, int rank, int axis, dtype type,
                            index_t max_extent = 5) {
  std::vector<std::vector<index_t>> shapes(n, std::vector<index_t>(rank));
  for (int d = 0; d < rank; ++d) {
    const index_t e = static_cast<index_t>(rng() % max_extent);
    for (auto &s : shapes)
      s[d] = d == axis ? static_cast<index_t>(rng() % max_extent) : e;
  }
  std::vector<ShapeRef> refs;
  for (auto &s : shapes)
    refs.push_back({s.data(), rank, type});
  return plan_cat("test", refs.data(), n, axis);
}

} // namespace refcat::testing

#endif
