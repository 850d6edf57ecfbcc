// User-defined element functions (jf::elementwise) on every backend: the CPU runs the host callable,
// kernels the CUDA body; both against the callable on random inputs of sizes 0, 1, odd and large,
// fused with producers, consumers and reductions (one kernel), several functions of one signature
// in one expression type (the kernel cache keys on the function), argument conversion, and the
// errors: a name that is not an identifier, a body that does not compile (NVRTC's log).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <jetfuse/jetfuse.hpp>

#include "test_support.hpp"

namespace {

using i64 = std::int64_t;
using test_support::message_of;
using test_support::rand_int;
using test_support::rng;
using test_support::seed;

double softplus_host(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }

const jf::elementwise<double(double)>& softplus() {
  static const jf::elementwise<double(double)> f("softplus", "return x > 20 ? x : log1p(exp(x));", softplus_host);
  return f;
}

// Results of the CUDA math library and glibc agree to a few ulp.
void expect_close(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k)
    ASSERT_NEAR(got[k], want[k], 8 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(want[k])))
        << what << " element " << k << " seed " << seed();
}

class UserFunctions : public test_support::on_backends {
};

TEST_P(UserFunctions, UnaryAgainstItsHostCallable) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(100003)}) {
    std::vector<double> xv(n);
    for (auto& x : xv) x = std::uniform_real_distribution<double>(-30, 30)(rng());
    const jf::array<double> a(xv, dev());
    jf::array<double> y = jf::full<double>({static_cast<i64>(n)}, std::nan(""), dev());  // poisoned
    y = softplus()(a * 2) + 1.0;  // producer and consumer in the same kernel
    std::vector<double> want(n);
    for (std::size_t k = 0; k < n; ++k) want[k] = softplus_host(xv[k] * 2) + 1.0;
    expect_close(y.to_vector(), want, "softplus(a * 2) + 1");
    // In a reduction: one full reduction kernel.
    double total = 0;
    for (double w : want) total += w - 1.0;
    EXPECT_NEAR(jf::sum(softplus()(a * 2)).item(), total, 1e-9 * std::max(1.0, std::abs(total)));
  }
  if (dev().kind == jf::device_kind::cuda) {
    const jf::array<double> a = jf::ones<double>({10}, dev());
    const std::string plan = jf::explain(softplus()(a * 2) + 1.0);
    EXPECT_NE(plan.find("1 kernel"), std::string::npos) << plan;
    EXPECT_NE(plan.find("jf_udf_"), std::string::npos) << plan;
    EXPECT_NE(plan.find("log1p(exp(x))"), std::string::npos) << plan;  // the body is in the source
  }
}

TEST_P(UserFunctions, SeveralArgumentsConvertedToTheSignature) {
  // float(float, int32): a weak scalar becomes int32, a double array float32, as jf::astype.
  const jf::elementwise<float(float, std::int32_t)> axpy("axpy", "return x * static_cast<float>(y) + 0.5f;",
                                                           [](float x, std::int32_t y) { return x * static_cast<float>(y) + 0.5f; });
  const jf::array<double> a({1.5, -2.25, 4.0}, dev());
  const jf::array<float> r = axpy(a, 3);
  EXPECT_EQ(r.to_vector(), (std::vector<float>{5.0f, -6.25f, 12.5f}));
  // bool(double, double, double): three arguments, a bool result used as a mask.
  const jf::elementwise<bool(double, double, double)> between(
      "between", "return y <= x && x < z;", [](double x, double y, double z) { return y <= x && x < z; });
  const jf::array<double> lo({0.0, 0.0, 5.0}, dev());
  EXPECT_EQ(jf::array<bool>(between(a, lo, 4.0)).to_vector(), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(jf::count_nonzero(between(a, lo, 10.0)).item(), 1);  // 1.5 only: -2.25 < 0, 4.0 < 5
}

TEST_P(UserFunctions, EachFunctionIsItsOwnKernel) {
  // Same signature, different bodies, the same expression type: the results must not mix.
  std::vector<jf::elementwise<double(double)>> fs;
  for (int k = 1; k <= 3; ++k)
    fs.emplace_back("times_" + std::to_string(k), "return x * " + std::to_string(k) + ".0;",
                    [k](double x) { return x * k; });
  const jf::array<double> a({1.0, 2.0}, dev());
  for (int k = 1; k <= 3; ++k) {
    const jf::array<double> r = fs[static_cast<std::size_t>(k - 1)](a);
    EXPECT_EQ(r.to_vector(), (std::vector<double>{1.0 * k, 2.0 * k})) << "function " << k;
  }
}

TEST_P(UserFunctions, Errors) {
  EXPECT_EQ(message_of<jf::value_error>([] {
              jf::elementwise<double(double)> f("two words", "return x;", [](double x) { return x; });
            }),
            "jf::elementwise: the name \"two words\" is not an identifier (letters, digits and _)");
  if (dev().kind == jf::device_kind::cuda) {
    const jf::elementwise<double(double)> broken("broken", "return x +* ;", [](double x) { return x; });
    const jf::array<double> a({1.0}, dev());
    const std::string what = message_of<jf::compile_error>([&] { (void)jf::array<double>(broken(a)); });
    EXPECT_NE(what.find("NVRTC log"), std::string::npos) << what;
    EXPECT_NE(what.find("return x +* ;"), std::string::npos) << what;
    EXPECT_EQ(jf::array<double>(softplus()(a)).size(), 1);  // later evaluations are unaffected
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, UserFunctions, ::testing::Values(jf::cpu, jf::cuda),
                         test_support::backend_name);

}  // namespace
