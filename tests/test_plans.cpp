// The plans jf::cuda would run (jf::explain_cuda, no GPU needed): how many kernels each common
// reduction costs and which kernel shape each one is. Guards the planner and the shape recogniser
// in CI, where no kernel runs.
#include <gtest/gtest.h>

#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

#include "explained_cuda.hpp"

namespace {

// The "--- kernel <name>: <shape>: ..." lines of an explanation: the shape of each step.
std::vector<std::string> shapes(const std::string& e) {
  std::vector<std::string> out;
  for (std::size_t p = 0; (p = e.find("--- kernel ", p)) != std::string::npos; ++p) {
    const std::size_t colon = e.find(": ", p);
    const std::size_t end = e.find(':', colon + 2);
    out.push_back(e.substr(colon + 2, end - colon - 2));
  }
  return out;
}

using v = std::vector<std::string>;

TEST(Plans, ReductionsAndTheirKernels) {
  const auto x = jf::zeros<float>({300, 4099});
  const auto a = jf::zeros<double>({1 << 20}), b = jf::zeros<double>({1 << 20});
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(a * b))), (v{"full reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sqrt(jf::sum(a * a)))), (v{"full reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::norm(a))), (v{"full reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::dot(a, b))), (v{"full reduction"}));
  const auto i = jf::zeros<std::int32_t>({1000});
  EXPECT_EQ(shapes(jf::explain_cuda(jf::dot(i, i))), (v{"full reduction"}));  // the int32 cast in the root
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(x, 1))), (v{"row reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(x, 0))), (v{"column reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(x.transpose(), 1))), (v{"column reduction"}));  // memory order decides
  EXPECT_EQ(shapes(jf::explain_cuda(jf::argmax(x, 1))), (v{"row reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(x - jf::mean(x, 1, jf::keepdims))), (v{"row reduction with map"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::min(x, 1), jf::max(x, 1))), (v{"row reduction"}));
  // A second kernel where a reduced value must exist before the next pass starts.
  EXPECT_EQ(shapes(jf::explain_cuda(jf::var(x, 1))), (v{"row reduction", "row reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(jf::square(x - jf::mean(x, 1, jf::keepdims))))),
            (v{"row reduction", "full reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(x - jf::mean(x, 0))), (v{"column reduction", "generic loop nest"}));
  EXPECT_EQ(shapes(jf::explain_cuda(x - jf::mean(x))), (v{"full reduction", "generic loop nest"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::var(a))), (v{"full reduction", "full reduction"}));
  // Unfused: one kernel per operation.
  EXPECT_EQ(shapes(jf::explain_cuda(a * b + 1)), (v{"map"}));
  EXPECT_GE(shapes(jf::detail::explain_with(jf::detail::eval_options{jf::detail::eval_mode::unfused, false, true},
                                            jf::sum(a * b)))
                .size(),
            2u);
}

// The counts of numpy.histogram / bincount as jf::histogram builds them (it evaluates at once).
template <jf::reducer R, class X> auto counts(const X& x, std::int64_t bins) {
  jf::detail::reduce_spec sp;
  sp.bins = bins;
  sp.lo = -1;
  sp.hi = 1;
  sp.data = jf::type_of_v<decltype(jf::capture(x))>.type;
  return jf::detail::counts_node<R>(jf::capture(x), sp);
}

TEST(Plans, HistogramsAreOneKernelWithTheirProducers) {
  const auto a = jf::zeros<double>({1 << 20});
  const auto x = jf::zeros<float>({300, 4099});
  const auto i = jf::zeros<std::int32_t>({1000});
  using jf::reducer;
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(a * 2 + 1, 100))), (v{"histogram"}));
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(x, 100))), (v{"histogram"}));  // flattened
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(x.transpose(), 100000))), (v{"histogram"}));
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::bincount>(i + 1, 7))), (v{"histogram"}));
  // One bin: a guarded count.
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(a, 1))), (v{"full reduction"}));
  // The bins of a value that needs a whole-array reduction first: that reduction, then the counts.
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(a - jf::mean(a), 10))), (v{"full reduction", "histogram"}));
  EXPECT_EQ(shapes(jf::explain_cuda(counts<reducer::histogram>(x - jf::mean(x, 1, jf::keepdims), 10))),
            (v{"row reduction", "histogram"}));  // the means stored, then counted
  const std::string e = jf::explain_cuda(counts<reducer::histogram>(a * 2 + 1, 100));
  EXPECT_NE(e.find("scatter sum i64"), std::string::npos) << e;
  // Unfused: a kernel per operation of the operand (a * 2, + 1), then the histogram's one.
  EXPECT_EQ(shapes(jf::detail::explain_with(jf::detail::eval_options{jf::detail::eval_mode::unfused, false, true},
                                            counts<reducer::histogram>(a * 2 + 1, 100))),
            (v{"generic loop nest", "generic loop nest", "histogram"}));
}

// Every histogram kernel compiles with NVRTC (PTX without a GPU): the ranges given and from the
// data (float and integer), bins in shared memory and in global memory, bincount, one bin, and
// the same counted after the reduction the values need.
TEST(Plans, HistogramKernelsCompileWithNvrtc) {
  const auto a = jf::zeros<double>({1 << 20});
  const auto x = jf::zeros<float>({300, 4099});
  const auto i = jf::zeros<std::int32_t>({1000});
  using jf::reducer;
  // The range as jf::histogram(x, bins) finds it from the data's min and max.
  auto from_data = [](const auto& e, std::int64_t bins, jf::detail::bin_range range) {
    jf::detail::reduce_spec sp;
    sp.bins = bins;
    sp.range = range;
    sp.lo = -3;
    sp.hi = 5;
    sp.ilo = -3;
    sp.ihi = 5;
    sp.data = jf::type_of_v<decltype(jf::capture(e))>.type;
    return jf::detail::counts_node<reducer::histogram>(jf::capture(e), sp);
  };
  const std::string plans[] = {
      jf::explain_cuda(counts<reducer::histogram>(a * 2 + 1, 100)),
      jf::explain_cuda(counts<reducer::histogram>(x, 100)),
      jf::explain_cuda(counts<reducer::histogram>(x.transpose(), 100000)),
      jf::explain_cuda(counts<reducer::bincount>(i + 1, 7)),
      jf::explain_cuda(counts<reducer::histogram>(a, 1)),
      jf::explain_cuda(from_data(a, 10, jf::detail::bin_range::data_float)),
      jf::explain_cuda(from_data(x, 10, jf::detail::bin_range::data_float)),
      jf::explain_cuda(from_data(i, 10, jf::detail::bin_range::data_int)),
      jf::explain_cuda(counts<reducer::histogram>(x - jf::mean(x, 1, jf::keepdims), 10)),
  };
  for (const std::string& plan : plans) test_support::expect_explained_cuda_compiles(plan);
}

// Scans: a step of their own with their producers fused; the step of the outputs holds the scan
// when every output is computed from it in its domain (cumsum(x * 2 + 1): one kernel).
TEST(Plans, ScansAreOneKernelWithTheirProducers) {
  const auto a = jf::zeros<double>({1 << 20});
  const auto i = jf::zeros<std::int32_t>({1 << 20});
  const auto x = jf::zeros<float>({300, 4099});
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(a * 2 + 1))), (v{"scan"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(i))), (v{"scan"}));  // int32 -> int64 in the kernel
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumprod(x))), (v{"scan"}));  // flattened: the whole 2-d array
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(x, 1))), (v{"scan"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(x, 0))), (v{"scan"}));  // a thread per column
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(x, 1) * 2 - x)), (v{"scan"}));  // consumers in the kernel
  // A reduction the scan reads is stored first; a reduction of the scan reads it stored.
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(a - jf::mean(a)))), (v{"full reduction", "scan"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(x - jf::mean(x, 1, jf::keepdims), 1))), (v{"row reduction", "scan"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::sum(jf::cumsum(x, 1), 1))), (v{"scan", "row reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::cumsum(jf::cumsum(a)))), (v{"scan", "scan"}));
  const std::string e = jf::explain_cuda(jf::cumsum(x, 0));
  EXPECT_NE(e.find("scan sum f32"), std::string::npos) << e;
  EXPECT_NE(e.find("a thread per row"), std::string::npos) << e;
  const std::string t = jf::explain_cuda(jf::cumsum(a));
  EXPECT_NE(t.find("decoupled look-back"), std::string::npos) << t;
  // Unfused: a kernel per operation of the operand, then the scan's.
  EXPECT_EQ(shapes(jf::detail::explain_with(jf::detail::eval_options{jf::detail::eval_mode::unfused, false, true},
                                            jf::cumsum(a * 2 + 1))),
            (v{"generic loop nest", "generic loop nest", "scan"}));
}

// The diffusion step's five views of one field have the same strides: one stride class, one
// offset computed per element, the unravel's division a multiply-high and shift (int indices).
TEST(Plans, StencilViewsShareOneOffset) {
  const auto u = jf::zeros<float>({2000, 2000});
  const auto mid = jf::range(1, -1), hi = jf::range(2, jf::range::none), lo = jf::range(jf::range::none, -2);
  const std::string e =
      jf::explain_cuda(u(mid, mid) + 0.1f * (u(hi, mid) + u(lo, mid) + u(mid, hi) + u(mid, lo) - 4 * u(mid, mid)));
  std::size_t classes = 0;
  for (std::size_t at = e.find("strided class 0"); at != std::string::npos; at = e.find("strided class 0", at + 1))
    ++classes;
  EXPECT_EQ(classes, 3u * 5u) << e;  // five inputs, in the IR before and after the passes and the kernel's header
  EXPECT_NE(e.find("const I o_in1 = o_in0;  // the same strides"), std::string::npos) << e;
  EXPECT_NE(e.find("__umulhi(static_cast<unsigned>(r), magic1)"), std::string::npos) << e;
  EXPECT_EQ(e.find("r % shape1"), std::string::npos) << e;
  test_support::expect_explained_cuda_compiles(e);
  // A view with other strides keeps its own offset.
  const std::string t = jf::explain_cuda(u(mid, mid) + u(mid, mid).transpose());
  EXPECT_EQ(t.find("the same strides"), std::string::npos) << t;
}

// Compaction (x(mask), flatnonzero, nonzero): after the count (a full reduction, its own
// evaluation), one kernel computes the mask, scans its counts and stores the selected values.
TEST(Plans, CompactionIsOneKernel) {  // launched twice (shape_compaction.cpp)
  const auto a = jf::zeros<double>({1 << 20});
  const auto x = jf::zeros<float>({300, 4099});
  using jf::capture;
  EXPECT_EQ(shapes(jf::explain_cuda(jf::count_nonzero(a > 0))), (v{"full reduction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::detail::values_node(capture(a > 0), capture(a * 2), 1000))), (v{"compaction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::detail::values_node(capture(x > 0), capture(x), 1000))), (v{"compaction"}));
  EXPECT_EQ(shapes(jf::explain_cuda(jf::detail::indices_node(capture(x.transpose() > 0), 1000, 1))), (v{"compaction"}));
  // A mask that needs a reduction first: it is stored, then the compaction.
  EXPECT_EQ(shapes(jf::explain_cuda(jf::detail::values_node(capture(a > jf::mean(a)), capture(a), 1000))),
            (v{"full reduction", "compaction"}));
  // One selected element: a guarded reduction, no positions.
  EXPECT_EQ(shapes(jf::explain_cuda(jf::detail::values_node(capture(a > 0), capture(a), 1))), (v{"full reduction"}));
  const std::string e = jf::explain_cuda(jf::detail::values_node(capture(a > 0), capture(a * 2), 1000));
  EXPECT_NE(e.find("scatter store f64"), std::string::npos) << e;
  EXPECT_NE(e.find("scan sum i64"), std::string::npos) << e;
  // Unfused: the mask's and the values' operations, then the compaction's own kernel.
  EXPECT_EQ(shapes(jf::detail::explain_with(jf::detail::eval_options{jf::detail::eval_mode::unfused, false, true},
                                            jf::detail::values_node(capture(a > 0), capture(a * 2), 1000))),
            (v{"generic loop nest", "generic loop nest", "compaction"}));
}

// Cases the differential fuzzer found on the GPU only (the passes and the planner do not run on the
// CPU): every step of their plans must be generated.
TEST(Plans, FuzzerFoundGraphsArePlanned) {
  const auto x = jf::zeros<std::int64_t>({3, 1, 4, 1});
  // argmin over an axis of extent 1 is the constant 0; the mean of it still runs over its domain.
  EXPECT_EQ(shapes(jf::explain_cuda(jf::nanmean(jf::argmin(x, 1), {-3, 1}))).size(), 1u);
  // A reduction over an axis of extent 1 is its operand, read in another domain: stored first,
  // fused and unfused.
  const auto a0 = jf::zeros<std::int32_t>({7, 300}).transpose();
  const auto a1 = jf::zeros<float>({300, 7});
  const auto a2 = jf::zeros<std::int32_t>({300, 1, 1});
  const auto e = jf::argmin((a1 * a0) % jf::nanmax(a2, 2), 0);
  EXPECT_FALSE(shapes(jf::explain_cuda(e)).empty());
  EXPECT_FALSE(shapes(jf::detail::explain_with(jf::detail::eval_options{jf::detail::eval_mode::unfused, false, true}, e))
                   .empty());
}

TEST(Plans, ExplainSaysWhyAValueIsStored) {
  const auto x = jf::zeros<double>({64, 128});
  const std::string e = jf::explain_cuda(jf::var(x, 1));
  EXPECT_NE(e.find("1 temporaries (values read by a later reduction"), std::string::npos) << e;
  EXPECT_NE(e.find("reduce sum f64"), std::string::npos) << e;
  // jf::explain of CPU arrays describes the CPU executor, not kernels.
  const std::string c = jf::explain(jf::var(x, 1));
  EXPECT_NE(c.find("CPU executor"), std::string::npos) << c;
  EXPECT_EQ(c.find("--- kernel"), std::string::npos) << c;
}

}  // namespace
