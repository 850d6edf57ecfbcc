// jetfuse's own host cost of a cached call on jf::cuda, without the driver's: run with
// bench/host_path/fake_libcuda.cpp as libcuda.so.1 (host_path.sh), every launch, copy and
// allocation returns at once, so what is timed is the expression walk, the variant lookup, the
// argument packing and jetfuse's bookkeeping around the launch. Prints ns per call for the small
// call of the GPU table (the quadratic formula on 1000 float64, into an existing output and into a
// new one), a stencil of five strided views and a put through a remembered index array and
// through one checked each call; `perf record` of it shows where the time goes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

using clk = std::chrono::steady_clock;

template <class F>
double ns_per_call(F&& call) {
  for (int i = 0; i < 1000; ++i) call();
  std::vector<double> t;
  for (int r = 0; r < 15; ++r) {
    const int n = 20000;
    const auto t0 = clk::now();
    for (int i = 0; i < n; ++i) call();
    t.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / n);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// "check" (ctest host_path_stand_in_driver, no timing): maps, a strided map, a reduction and a
// scan, repeated on this thread and on two others (whose graphs are destroyed when they end), so
// that launches go direct, through new graphs, through re-parameterised ones and through cached
// ones. Fails unless kernels were launched and some through graphs; the stand-in driver prints at
// exit how many graph execs are left alive.
int check() {
  auto work = [] {
    for (std::int64_t n : {1000, 1001, 7}) {
      jf::array<double> a = jf::full<double>({n}, 1.5, jf::cuda), b = jf::full<double>({n}, 4.0, jf::cuda);
      jf::array<double> x = jf::empty<double>({n}, jf::cuda);
      for (int i = 0; i < 50; ++i) {
        x = (-b + jf::sqrt(b * b - 4 * a * a)) / (2 * a);
        jf::array<double> y = x * 2 + b;
        jf::array<double> s = jf::sum(y * y);
        jf::array<double> cs = jf::cumsum(y);
        jf::array<float> m = jf::zeros<float>({16, 16}, jf::cuda);
        m(jf::range(1, -1), jf::range(1, -1)) = m(jf::range(2, jf::range::none), jf::range(1, -1)) + 1.0f;
      }
    }
  };
  work();
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  work();
  const jf::stats_t st = jf::stats();
  std::printf("%s\n", jf::to_string(st).c_str());
  if (st.launches == 0 || st.graph_launches == 0 || st.graph_launches >= st.launches) {
    std::printf("expected launches, some of them through graphs and some direct\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // "small", "new", "stencil" or "put": that case alone; "check": the ctest (no timing)
  const std::string only = argc > 1 ? argv[1] : "";
  if (!jf::cuda_available()) {
    std::printf("no CUDA driver: run through host_path.sh (the fake libcuda.so.1)\n");
    return 1;
  }
  const std::int64_t n = 1000;
  if (only == "check") return check();
  jf::array<double> a = jf::full<double>({n}, 1.5, jf::cuda), b = jf::full<double>({n}, 4.0, jf::cuda),
                    c = jf::full<double>({n}, 1.25, jf::cuda), x = jf::empty<double>({n}, jf::cuda);
  auto quadratic = [&] { return (-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a); };
  if (only == "first" || only == "first-warm") {
    // The table's FirstCall: the first call in this process, its kernel from the disk cache when an
    // earlier run left it there (host_path.sh runs this case 22 times). first-warm: another
    // expression's first call before it, as the peers' first calls come after other calls of theirs.
    if (only == "first-warm") {
      jf::array<double> w = jf::sin(a) * 3 + c;
    }
    jf::synchronize();
    const auto t0 = clk::now();
    jf::array<double> y = quadratic();
    jf::synchronize();
    const double us = std::chrono::duration<double, std::micro>(clk::now() - t0).count();
    std::printf("first call in the process: %.0f us (%s)\n", us, jf::to_string(jf::stats()).c_str());
    return 0;
  }
  if (only.empty() || only == "small")
    std::printf("small call into an existing output: %.0f ns\n", ns_per_call([&] { x = quadratic(); }));
  if (only.empty() || only == "new")
    std::printf("small call into a new output:       %.0f ns\n", ns_per_call([&] {
                  jf::array<double> y = quadratic();
                  (void)y;
                }));
  const std::int64_t f = 64;
  jf::array<float> u = jf::full<float>({f, f}, 1.0f, jf::cuda), un = jf::zeros<float>({f, f}, jf::cuda);
  jf::array<float> inner = un(jf::range(1, -1), jf::range(1, -1));
  const auto mid = jf::range(1, -1), hi = jf::range(2, jf::range::none), lo = jf::range(jf::range::none, -2);
  if (only.empty() || only == "stencil")
    std::printf("stencil of five views (64 x 64):    %.0f ns\n", ns_per_call([&] {
                  inner = u(mid, mid) + 0.1f * (u(hi, mid) + u(lo, mid) + u(mid, hi) + u(mid, lo) - 4 * u(mid, mid));
                }));
  // A put of 1000 float64 by a permutation, a synchronisation every 100 calls: through an index
  // array remembered after its first wait (the engine's lookup and its lesson each call), and
  // through one whose memory was handed out (never remembered: numpy's checks every call).
  std::vector<std::int64_t> pv(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) pv[static_cast<std::size_t>(k)] = (k * 7) % n;
  const jf::array<std::int64_t> perm(pv, jf::cuda), handed_out(pv, jf::cuda);
  (void)handed_out.raw_data();
  int calls = 0;
  auto put_through = [&](const jf::array<std::int64_t>& idx) {
    jf::put(x, idx, a);
    if (++calls % 100 == 0) jf::synchronize();
  };
  if (only.empty() || only == "put") {
    std::printf("put by a remembered permutation:    %.0f ns\n", ns_per_call([&] { put_through(perm); }));
    std::printf("put, the indices checked each call: %.0f ns\n", ns_per_call([&] { put_through(handed_out); }));
  }
  std::printf("%s\n", jf::to_string(jf::stats()).c_str());
  return 0;
}
