// The fusion engine on a GPU: layouts, views, broadcasts, in-place and overlapping assignment,
// several outputs, kernel counts and temporaries (jf::stats), the caches. Skips without a GPU.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "gpu_test_util.hpp"

extern char** environ;

namespace {

using jf_test::random_array;
using jf_test::same_values;

jf::array<double> gpu(const jf::array<double>& a) { return jf::to_backend(a, jf::cuda); }

TEST(CudaFusion, QuadraticIsOneKernelWithoutTemporaries) {
  JF_REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t(1), std::int64_t(31), std::int64_t((1 << 20) + 3)}) {
    auto a = random_array<double>({n}, false, 1, 2), c = random_array<double>({n}, false, 1, 2);
    auto b = random_array<double>({n}, false, 3, 6);
    auto ag = gpu(a), bg = gpu(b), cg = gpu(c);
    auto quad = [](const auto& a_, const auto& b_, const auto& c_) { return (-b_ + jf::sqrt(b_ * b_ - 4 * a_ * c_)) / (2 * a_); };
    const jf::array<double> want = quad(a, b, c);
    jf::array<double> warm = quad(ag, bg, cg);  // compiles (or loads) the kernel
    jf::reset_stats();
    jf::array<double> x = quad(ag, bg, cg);
    const jf::stats_t s = jf::stats();
    EXPECT_EQ(s.launches, 1u);
    EXPECT_EQ(s.temporaries, 0u);
    EXPECT_EQ(s.nvrtc_compiles, 0u);
    EXPECT_TRUE(same_values(x.to_vector(), want.to_vector()));
    EXPECT_TRUE(same_values(warm.to_vector(), want.to_vector()));
    // Unfused: one kernel per operation, a temporary per intermediate.
    jf::reset_stats();
    jf::array<double> u = jf::eval(jf::unfused, quad(ag, bg, cg));
    EXPECT_GE(jf::stats().launches, 8u);
    EXPECT_GE(jf::stats().temporaries, 7u);
    EXPECT_TRUE(same_values(u.to_vector(), want.to_vector()));
  }
}

TEST(CudaFusion, SquaresBecomeMultiplications) {
  JF_REQUIRE_GPU();
  auto b = gpu(random_array<double>({1000}));
  const std::string e1 = jf::explain(b * b);
  const std::string e2 = jf::explain(jf::power(b, 2) + 1.0);
  const auto kernel_of = [](const std::string& s) { return s.substr(s.find("--- CUDA source")); };
  EXPECT_EQ(kernel_of(e1).find("jf_power"), std::string::npos) << e1;
  EXPECT_EQ(kernel_of(e2).find("jf_power"), std::string::npos) << e2;
  EXPECT_NE(kernel_of(e2).find("jf_multiply"), std::string::npos) << e2;
  // A non-integral exponent stays a run-time parameter and a call to pow.
  const std::string e3 = jf::explain(jf::power(b, 2.5));
  EXPECT_NE(kernel_of(e3).find("jf_power"), std::string::npos) << e3;
  auto bc = random_array<double>({1000});
  auto bgc = gpu(bc);
  jf::array<double> p2 = jf::power(bgc, 2), p3 = jf::power(bgc, 3), p25 = jf::power(bgc, 2.5);
  jf::array<double> w2 = jf::power(bc, 2), w3 = jf::power(bc, 3), w25 = jf::power(bc, 2.5);
  EXPECT_TRUE(same_values(p2.to_vector(), w2.to_vector()));
  EXPECT_TRUE(same_values(p3.to_vector(), w3.to_vector()));
  EXPECT_TRUE(same_values(p25.to_vector(), w25.to_vector()));
}

TEST(CudaFusion, ScalarsAreParametersNotRecompiled) {
  JF_REQUIRE_GPU();
  auto x = random_array<double>({513});
  auto xg = gpu(x);
  jf::array<double> r = xg * 2.0 + 1.0;
  jf::reset_stats();
  for (double s : {3.0, -7.5, 0.25}) {
    jf::array<double> got = xg * s + 1.0;
    jf::array<double> want = x * s + 1.0;
    EXPECT_TRUE(same_values(got.to_vector(), want.to_vector()));
  }
  EXPECT_EQ(jf::stats().nvrtc_compiles, 0u);
  EXPECT_EQ(jf::stats().disk_cache_hits, 0u);
  EXPECT_EQ(jf::stats().launches, 3u);
}

TEST(CudaFusion, ViewsBroadcastsAndTransposes) {
  JF_REQUIRE_GPU();
  auto m = random_array<double>({37, 64});
  auto row = random_array<double>({64});
  auto col = random_array<double>({37, 1});
  auto mg = gpu(m), rowg = gpu(row), colg = gpu(col);
  auto f = [](const auto& m_, const auto& r_, const auto& c_) { return jf::sin(m_) * r_ + c_; };
  const jf::array<double> want = f(m, row, col);
  const jf::array<double> got = f(mg, rowg, colg);
  EXPECT_EQ(got.shape(), (jf::shape_t{37, 64}));
  EXPECT_TRUE(same_values(got.to_vector(), want.to_vector()));
  // Stepped, reversed and transposed views.
  auto v = [](const auto& m_) { return m_(jf::range(1, -1, 2), jf::range(63, 0, -3)) + 2.0 * m_(jf::range(0, 35, 2), jf::range(0, 63, 3)); };
  EXPECT_TRUE(same_values(jf::array<double>(v(mg)).to_vector(), jf::array<double>(v(m)).to_vector()));
  auto t = [](const auto& m_) { return m_.transpose() * 2.0 - 1.0; };
  EXPECT_TRUE(same_values(jf::array<double>(t(mg)).to_vector(), jf::array<double>(t(m)).to_vector()));
  // A 0-d array and an array of one element broadcast like scalars.
  auto one = random_array<double>({1});
  auto g1 = [](const auto& m_, const auto& o_) { return m_ / o_; };
  EXPECT_TRUE(same_values(jf::array<double>(g1(mg, gpu(one))).to_vector(), jf::array<double>(g1(m, one)).to_vector()));
  // Unfused gives the same on views.
  EXPECT_TRUE(same_values(jf::eval(jf::unfused, v(mg)).to_vector(), jf::array<double>(v(m)).to_vector()));
}

// Strided views with rows longer than a block (the flat loop's unravel across row boundaries and
// blocks): the diffusion step's five views, reversed and stepped rows, a transpose of a 3-d array,
// a strided output (poisoned first), few rows and many.
TEST(CudaFusion, StridedViewsWithLongRows) {
  JF_REQUIRE_GPU();
  for (const std::int64_t rows : {2, 3, 1999}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    auto u = random_array<double>({rows + 2, 1301});
    auto ug = gpu(u);
    const auto mid = jf::range(1, -1), hi = jf::range(2, jf::range::none), lo = jf::range(jf::range::none, -2);
    auto step = [&](const auto& x) {
      return x(mid, mid) + 0.1 * (x(hi, mid) + x(lo, mid) + x(mid, hi) + x(mid, lo) - 4.0 * x(mid, mid));
    };
    EXPECT_TRUE(same_values(jf::array<double>(step(ug)).to_vector(), jf::array<double>(step(u)).to_vector()));
    auto rev = [](const auto& x) { return x(jf::all, jf::range(jf::range::none, jf::range::none, -1)) * 2.0 + x(jf::all, jf::all); };
    EXPECT_TRUE(same_values(jf::array<double>(rev(ug)).to_vector(), jf::array<double>(rev(u)).to_vector()));
    // Into a strided view of a poisoned output.
    auto out = jf::full<double>({rows + 2, 1301}, std::nan(""), jf::cuda);
    auto outc = jf::full<double>({rows + 2, 1301}, std::nan(""), jf::cpu);
    out(mid, mid) = step(ug) - ug(hi, lo);
    outc(mid, mid) = step(u) - u(hi, lo);
    EXPECT_TRUE(same_values(out.to_vector(), outc.to_vector()));
  }
  // Three axes, the last long after a transpose; a row every other step.
  auto c = random_array<double>({1100, 3, 5});
  auto cg = gpu(c);
  auto t = [](const auto& x) { return x.transpose() * 3.0 - x.transpose(); };  // shape {5, 3, 1100}
  EXPECT_TRUE(same_values(jf::array<double>(t(cg)).to_vector(), jf::array<double>(t(c)).to_vector()));
  auto w = random_array<double>({4, 6, 2100});
  auto wg = gpu(w);
  auto s2 = [](const auto& x) { return jf::sqrt(x(jf::range(0, 4, 3), jf::range(5, jf::range::none, -2), jf::range(0, 2100, 2)) + 1.0); };
  EXPECT_TRUE(same_values(jf::array<double>(s2(wg)).to_vector(), jf::array<double>(s2(w)).to_vector()));
}

// Strided 2-d and 3-d maps of more shapes against the CPU: more rows than a grid of 4 waves has
// threads, rows shorter than a block, one element a row, a reversed strided output (poisoned).
TEST(CudaFusion, StridedMapsOfManyShapes) {
  JF_REQUIRE_GPU();
  const auto mid = jf::range(1, -1), hi = jf::range(2, jf::range::none), lo = jf::range(jf::range::none, -2);
  auto step = [&](const auto& x) {
    return x(mid, mid) + 0.25 * (x(hi, mid) + x(lo, mid) + x(mid, hi) + x(mid, lo) - 4.0 * x(mid, mid));
  };
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{70001, 133}, {3, 2000}, {300, 40}, {2, 1}, {4, 131}};
  for (const auto& [rows, cols] : shapes) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    auto u = random_array<double>({rows + 2, cols + 2});
    auto ug = gpu(u);
    EXPECT_TRUE(same_values(jf::array<double>(step(ug)).to_vector(), jf::array<double>(step(u)).to_vector()));
    auto out = jf::full<double>({rows + 2, cols + 2}, std::nan(""), jf::cuda);
    auto outc = jf::full<double>({rows + 2, cols + 2}, std::nan(""), jf::cpu);
    out(mid, jf::range(cols, 0, -1)) = step(ug) * ug(hi, lo);  // a reversed strided output
    outc(mid, jf::range(cols, 0, -1)) = step(u) * u(hi, lo);
    EXPECT_TRUE(same_values(out.to_vector(), outc.to_vector()));
  }
  // The diffusion step's form: the interior of a second field (poisoned), whose strides are the
  // five views' (one stride class, one offset), fused and unfused; a divisor of 1, powers of two
  // and their neighbours as row lengths.
  const std::pair<std::int64_t, std::int64_t> fields[] = {{1, 1}, {2, 64}, {65, 63}, {7, 65}, {1999, 1998}};
  for (const auto& [rows, cols] : fields) {
    SCOPED_TRACE("field " + std::to_string(rows) + " x " + std::to_string(cols));
    auto u = random_array<float>({rows + 2, cols + 2}, false);
    auto ug = jf::to_backend(u, jf::cuda);
    auto fstep = [&](const auto& x) {
      return x(mid, mid) + 0.1f * (x(hi, mid) + x(lo, mid) + x(mid, hi) + x(mid, lo) - 4 * x(mid, mid));
    };
    auto want = jf::full<float>({rows + 2, cols + 2}, std::nanf(""), jf::cpu);
    want(mid, mid) = fstep(u);
    for (bool fused : {true, false}) {
      auto un = jf::full<float>({rows + 2, cols + 2}, std::nanf(""), jf::cuda);
      if (fused)
        un(mid, mid) = fstep(ug);
      else
        un(mid, mid) = jf::eval(jf::unfused, fstep(ug));
      EXPECT_TRUE(same_values(un.to_vector(), want.to_vector())) << (fused ? "fused" : "unfused");
    }
  }
  // Three axes of one stride class: shifted views along the first and last axes.
  auto v3 = random_array<double>({6, 33, 130}, false);
  auto v3g = gpu(v3);
  auto s3 = [](const auto& x) {
    const auto in = jf::range(1, -1), up = jf::range(2, jf::range::none), down = jf::range(jf::range::none, -2);
    return x(in, jf::all, in) * 2.0 - x(up, jf::all, down) + x(down, jf::all, up);
  };
  auto out3 = jf::full<double>({6, 33, 130}, std::nan(""), jf::cuda);
  auto out3c = jf::full<double>({6, 33, 130}, std::nan(""), jf::cpu);
  out3(jf::range(1, -1), jf::all, jf::range(1, -1)) = s3(v3g);
  out3c(jf::range(1, -1), jf::all, jf::range(1, -1)) = s3(v3);
  EXPECT_TRUE(same_values(out3.to_vector(), out3c.to_vector()));
  // Three axes, a stepped middle axis.
  auto w = random_array<float>({5, 9, 700});
  auto wg = jf::to_backend(w, jf::cuda);
  auto f = [](const auto& x) {
    return x(jf::all, jf::range(0, 9, 2), jf::range(1, jf::range::none)) * 2.0f -
           x(jf::all, jf::range(8, jf::range::none, -2), jf::range(0, -1));
  };
  EXPECT_TRUE(same_values(jf::array<float>(f(wg)).to_vector(), jf::array<float>(f(w)).to_vector()));
}

TEST(CudaFusion, AssignmentInPlaceAndOverlapping) {
  JF_REQUIRE_GPU();
  const std::int64_t n = 100001;
  auto x = random_array<double>({n});
  auto xg = gpu(x);
  auto xc = x.copy();
  // In place, element for element: no temporary.
  jf::reset_stats();
  xg += 2.0 * xg;
  xc += 2.0 * xc;
  EXPECT_EQ(jf::stats().temporaries, 0u);
  EXPECT_TRUE(same_values(xg.to_vector(), xc.to_vector()));
  // Shifted overlap: numpy's answer (all reads before any write).
  xg(jf::range(1, n)) = xg(jf::range(0, n - 1)) * 0.5 + 1.0;
  xc(jf::range(1, n)) = xc(jf::range(0, n - 1)) * 0.5 + 1.0;
  EXPECT_TRUE(same_values(xg.to_vector(), xc.to_vector()));
  // Reversed overlap.
  xg = xg(jf::range(n - 1, jf::range::none, -1)) + 0.0;
  xc = xc(jf::range(n - 1, jf::range::none, -1)) + 0.0;
  EXPECT_TRUE(same_values(xg.to_vector(), xc.to_vector()));
  // Writing into a strided view with a broadcast value; the output is poisoned first.
  auto m = jf::full<double>({8, 10}, std::nan(""), jf::cuda);
  auto mc = jf::full<double>({8, 10}, std::nan(""), jf::cpu);
  auto r = random_array<double>({10});
  m(jf::range(0, 8, 3), jf::all) = gpu(r) * 3.0;
  mc(jf::range(0, 8, 3), jf::all) = r * 3.0;
  EXPECT_TRUE(same_values(m.to_vector(), mc.to_vector()));
  // A value that does not fit the destination.
  EXPECT_THROW(m(jf::range(0, 2), jf::all) = gpu(random_array<double>({3})) * 1.0, jf::shape_error);
}

TEST(CudaFusion, SeveralOutputsOfDifferentDtypesInOneKernel) {
  JF_REQUIRE_GPU();
  auto x = random_array<double>({4097});
  auto y = random_array<float>({4097});
  auto xg = gpu(x);
  auto yg = jf::to_backend(y, jf::cuda);
  jf::array<double> warm = xg + 1.0;
  (void)warm;
  auto [s, c, big] = jf::eval(jf::sin(xg) * yg, jf::cos(yg), xg > 0.5);
  jf::reset_stats();
  auto [s2, c2, big2] = jf::eval(jf::sin(xg) * yg, jf::cos(yg), xg > 0.5);
  EXPECT_EQ(jf::stats().launches, 1u);
  auto [ws, wc, wbig] = jf::eval(jf::sin(x) * y, jf::cos(y), x > 0.5);
  EXPECT_TRUE(same_values(s.to_vector(), ws.to_vector()));
  EXPECT_TRUE(same_values(c.to_vector(), wc.to_vector()));
  EXPECT_TRUE(same_values(big.to_vector(), wbig.to_vector()));
  EXPECT_TRUE(same_values(s2.to_vector(), ws.to_vector()));
}

TEST(CudaFusion, Errors) {
  JF_REQUIRE_GPU();
  auto a = gpu(random_array<double>({10}));
  auto b = random_array<double>({10});
  EXPECT_THROW(jf::array<double>(a + b), jf::backend_mismatch);
  auto c = gpu(random_array<double>({11}));
  try {
    jf::array<double> r = a + c;
    FAIL() << "no shape_error";
  } catch (const jf::shape_error& e) {
    EXPECT_NE(std::string(e.what()).find("(10,)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(11,)"), std::string::npos) << e.what();
  }
  // Inputs are untouched when an evaluation fails.
  const auto before = a.to_vector();
  EXPECT_THROW(a = a + c, jf::shape_error);
  EXPECT_TRUE(same_values(a.to_vector(), before));  // bit for bit: random_array has NaNs (NaN != NaN)
  EXPECT_THROW(jf::to_backend(a, jf::cuda)(10), jf::index_error);
}

// The child half of the disk-cache test: a fresh process evaluates the same expression.
TEST(CudaDiskCacheChild, LoadsFromDisk) {
  if (!std::getenv("JF_DISK_CACHE_CHILD")) GTEST_SKIP() << "runs only as the child of CudaDiskCache.SecondProcess";
  JF_REQUIRE_GPU();
  auto x = gpu(random_array<double>({1000}));
  jf::reset_stats();
  jf::array<double> r = jf::tanh(x) * 0.75 - jf::cbrt(x);
  r.to_vector();
  EXPECT_EQ(jf::stats().nvrtc_compiles, 0u);
  EXPECT_GE(jf::stats().disk_cache_hits, 1u);
}

TEST(CudaDiskCache, SecondProcess) {
  JF_REQUIRE_GPU();
  if (std::getenv("JF_DISABLE_DISK_CACHE")) GTEST_SKIP() << "the disk cache is disabled";
  // This process compiles the kernel or loads it: either way it is on disk afterwards ...
  auto x = gpu(random_array<double>({1000}));
  jf::array<double> r = jf::tanh(x) * 0.75 - jf::cbrt(x);
  r.to_vector();
  // ... and a new process must load the kernel from disk.
  setenv("JF_DISK_CACHE_CHILD", "1", 1);
  std::string filter = "--gtest_filter=CudaDiskCacheChild.LoadsFromDisk";
  char* argv[] = {const_cast<char*>("/proc/self/exe"), filter.data(), nullptr};
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  unsetenv("JF_DISK_CACHE_CHILD");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child failed";
}

}  // namespace
