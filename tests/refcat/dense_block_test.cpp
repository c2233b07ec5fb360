// The dense-block example written twice computes the same values and
// gradients, and those gradients are right (central finite differences).
#define REFCAT_EXAMPLE_NO_MAIN
#include "dense_block_erased.cpp"
#include "dense_block_stable.cpp"

#include <gtest/gtest.h>

#include <cmath>

namespace {

using namespace dense;

template <class Tensor> bool bitwise_equal(const Tensor &a, const Tensor &b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.bytes()) == 0;
}

TEST(DenseBlock, ErasedAndStableAgreeBitwiseOverTrainingSteps) {
  Problem e = make_problem(), s = make_problem();
  for (int step = 0; step < 3; ++step) {
    StepResult a = erased::train_step(e.model, e.input, e.target, 0.1);
    StepResult b = stable::train_step(s.model, s.input, s.target, 0.1);
    EXPECT_EQ(a.loss, b.loss) << "step " << step;
    EXPECT_TRUE(bitwise_equal(a.output, b.output));
    EXPECT_TRUE(bitwise_equal(a.dinput, b.dinput));
    for (int l = 0; l < kLayers; ++l) {
      EXPECT_TRUE(bitwise_equal(a.dw[l], b.dw[l])) << "layer " << l;
      EXPECT_TRUE(bitwise_equal(a.db[l], b.db[l])) << "layer " << l;
    }
  }
}

// d loss / d p by central differences, p one element of a parameter or the
// input, against the analytic gradient.
template <class Step> void check_gradients(Step step) {
  Problem p = make_problem();
  const StepResult r = step(p.model, p.input, p.target, 0.0); // lr 0: no update
  const double h = 1e-6;
  auto numeric = [&](double &x) {
    const double saved = x;
    x = saved + h;
    const double up = step(p.model, p.input, p.target, 0.0).loss;
    x = saved - h;
    const double down = step(p.model, p.input, p.target, 0.0).loss;
    x = saved;
    return (up - down) / (2 * h);
  };
  auto expect_close = [](double analytic, double approx, const std::string &what) {
    EXPECT_NEAR(analytic, approx, 1e-7 + 1e-5 * std::abs(approx)) << what;
  };
  int checked = 0;
  for (int l = 0; l < kLayers; ++l) {
    for (index_t i = 0; i < p.model.layers[l].w.size(); i += 5, ++checked)
      expect_close(r.dw[l][i], numeric(p.model.layers[l].w[i]),
                   "dw layer " + std::to_string(l) + " element " + std::to_string(i));
    for (index_t i = 0; i < p.model.layers[l].b.size(); ++i, ++checked)
      expect_close(r.db[l][i], numeric(p.model.layers[l].b[i]),
                   "db layer " + std::to_string(l) + " element " + std::to_string(i));
  }
  for (index_t i = 0; i < p.input.size(); i += 3, ++checked)
    expect_close(r.dinput[i], numeric(p.input[i]), "dinput element " + std::to_string(i));
  EXPECT_GT(checked, 40);
}

TEST(DenseBlock, StableGradientsMatchFiniteDifferences) {
  check_gradients([](auto &&...a) { return stable::train_step(a...); });
}

TEST(DenseBlock, ErasedGradientsMatchFiniteDifferences) {
  check_gradients([](auto &&...a) { return erased::train_step(a...); });
}

} // namespace
