// The CUDA runtime, buffers, devices and stats. NVRTC tests run without a GPU; tests that need one
// skip cleanly when jf::cuda_available() is false.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <jetfuse/buffer.hpp>
#include <jetfuse/device.hpp>
#include <jetfuse/errors.hpp>
#include <jetfuse/stats.hpp>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda/disk_cache.hpp"
#include "cuda/runtime.hpp"
#include "fill_kernel.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/nvrtc_options.hpp"
#endif

namespace rt = jf::cuda_rt;

namespace {

#define REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU test skipped"

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

std::vector<unsigned char> random_bytes(std::size_t n) {
  std::vector<unsigned char> v(n);
  for (auto& c : v) c = static_cast<unsigned char>(rng()() & 0xff);
  return v;
}

// A unique comment makes a source new to every cache (memory and disk) of every run.
std::string fresh_tag() { return "// tag " + std::to_string(rng()()) + "\n"; }

using jf_test::fill_args;
using jf_test::fill_source_body;

// ---- stats and devices (no GPU needed) -------------------------------------------------------

TEST(Stats, BumpResetAndToString) {
  jf::reset_stats();
  EXPECT_EQ(jf::stats().launches, 0u);
  const std::uint64_t n = 1 + rng()() % 1000;
  jf::detail::bump(jf::detail::counter::temporary_bytes, n);
  jf::detail::bump(jf::detail::counter::temporaries);
  jf::detail::bump(jf::detail::counter::disk_cache_rejects, 2);
  const jf::stats_t s = jf::stats();
  EXPECT_EQ(s.temporary_bytes, n);
  EXPECT_EQ(s.temporaries, 1u);
  EXPECT_EQ(s.disk_cache_rejects, 2u);
  EXPECT_EQ(s.launches + s.nvrtc_compiles + s.memory_cache_hits + s.disk_cache_hits + s.device_allocations, 0u);
  const std::string text = jf::to_string(s);
  EXPECT_NE(text.find("temporary_bytes=" + std::to_string(n)), std::string::npos) << text;
  EXPECT_NE(text.find("disk_cache_rejects=2"), std::string::npos) << text;
  EXPECT_NE(text.find("launches=0"), std::string::npos) << text;
  jf::reset_stats();
  EXPECT_EQ(jf::stats().temporary_bytes, 0u);
}

TEST(Stats, ConcurrentBumpsAreAllCounted) {
  jf::reset_stats();
  std::vector<std::thread> t;
  for (int i = 0; i < 4; ++i)
    t.emplace_back([] {
      for (int k = 0; k < 10000; ++k) jf::detail::bump(jf::detail::counter::launches);
    });
  for (auto& x : t) x.join();
  EXPECT_EQ(jf::stats().launches, 40000u);
}

// Each thread counts on its own (src/core/stats.cpp): a running thread's counts are in the totals,
// a reset while it runs starts them again at zero, and its counts stay after it exits.
TEST(Stats, LiveThreadsResetAndExit) {
  std::mutex m;
  std::condition_variable cv;
  int phase = 0;  // 1: the thread has counted; 2: reset, count again; 3: counted again; 4: exit
  auto wait_for = [&](int p) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return phase == p; });
  };
  auto go = [&](int p) {
    {
      std::lock_guard<std::mutex> lock(m);
      phase = p;
    }
    cv.notify_all();
  };
  jf::reset_stats();
  std::thread worker([&] {
    jf::detail::bump(jf::detail::counter::temporaries, 5);
    go(1);
    wait_for(2);
    jf::detail::bump(jf::detail::counter::temporaries, 7);
    go(3);
    wait_for(4);
  });
  wait_for(1);
  jf::detail::bump(jf::detail::counter::temporaries, 1);
  EXPECT_EQ(jf::stats().temporaries, 6u);  // the live thread's 5 and this one's 1
  jf::reset_stats();
  EXPECT_EQ(jf::stats().temporaries, 0u);
  go(2);
  wait_for(3);
  EXPECT_EQ(jf::stats().temporaries, 7u);
  go(4);
  worker.join();
  EXPECT_EQ(jf::stats().temporaries, 7u);  // kept after the thread exited
  jf::detail::bump(jf::detail::counter::temporaries, 2);
  EXPECT_EQ(jf::stats().temporaries, 9u);
}

TEST(Device, Names) {
  EXPECT_EQ(jf::to_string(jf::cpu), "cpu");
  EXPECT_EQ(jf::to_string(jf::cuda), "cuda:0");
  EXPECT_EQ(jf::to_string(jf::device{jf::device_kind::cuda, 3}), "cuda:3");
  EXPECT_EQ(jf::cuda_available(), rt::available());
  EXPECT_EQ(jf::cuda_available(), jf::cuda_available());  // cached, never throws
}

// ---- host buffers ---------------------------------------------------------------------------

TEST(HostBuffer, AllocateAlignedAndCopyRoundTrip) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(1) << 20}) {
    jf::detail::buffer_ptr a = jf::detail::allocate(jf::cpu, n);
    ASSERT_TRUE(a);
    ASSERT_NE(a->ptr, nullptr) << "size " << n;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a->ptr) % 64, 0u);
    EXPECT_EQ(a->bytes, n);
    EXPECT_EQ(a->dev, jf::cpu);
    const auto in = random_bytes(n);
    jf::detail::copy_from_host(*a, 0, in.data(), n);
    jf::detail::buffer_ptr b = jf::detail::allocate(jf::cpu, n);
    jf::detail::copy_bytes(*b, 0, *a, 0, n);
    std::vector<unsigned char> out(n, 0);
    jf::detail::copy_to_host(out.data(), *b, 0, n);
    EXPECT_EQ(out, in) << "size " << n;
  }
}

TEST(HostBuffer, OffsetsOverlapAndBounds) {
  const std::size_t n = 101;
  auto a = jf::detail::allocate(jf::cpu, n);
  const auto in = random_bytes(n);
  jf::detail::copy_from_host(*a, 0, in.data(), n);
  // Overlapping copy within one buffer behaves like memmove.
  jf::detail::copy_bytes(*a, 10, *a, 0, 50);
  std::vector<unsigned char> want = in;
  std::memmove(want.data() + 10, in.data(), 50);
  std::vector<unsigned char> got(n);
  jf::detail::copy_to_host(got.data(), *a, 0, n);
  EXPECT_EQ(got, want);
  std::vector<unsigned char> part(7);
  jf::detail::copy_to_host(part.data(), *a, 94, 7);
  EXPECT_TRUE(std::equal(part.begin(), part.end(), want.begin() + 94));
  EXPECT_THROW(jf::detail::copy_to_host(part.data(), *a, 95, 7), jf::error);
  EXPECT_THROW(jf::detail::copy_from_host(*a, n, part.data(), 1), jf::error);
  EXPECT_THROW(jf::detail::copy_bytes(*a, 0, *a, std::size_t(-1), 2), jf::error);  // no wrap-around
  EXPECT_NO_THROW(jf::detail::copy_bytes(*a, n, *a, n, 0));
}

TEST(HostBuffer, AbsurdAllocationThrowsOutOfMemory) {
  try {
    jf::detail::allocate(jf::cpu, std::size_t(1) << 62);
    FAIL() << "expected jf::out_of_memory";
  } catch (const jf::out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(std::size_t(1) << 62)), std::string::npos) << e.what();
  }
}

TEST(HostBuffer, AdoptCallsTheDeleterOnce) {
  int calls = 0;
  auto* mem = new int[5]{1, 2, 3, 4, 5};
  {
    auto b = jf::detail::adopt(jf::cpu, mem, 5 * sizeof(int), [&](void* p) {
      ++calls;
      delete[] static_cast<int*>(p);
    });
    EXPECT_EQ(b->ptr, mem);
    int out[5] = {};
    jf::detail::copy_to_host(out, *b, 0, sizeof out);
    EXPECT_EQ(out[4], 5);
    auto copy = b;
    b.reset();
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
  int keep[2] = {7, 8};
  { auto b = jf::detail::adopt(jf::cpu, keep, sizeof keep, nullptr); }  // user keeps owning it
  EXPECT_EQ(keep[1], 8);
  EXPECT_THROW(jf::detail::adopt(jf::cpu, nullptr, 8, nullptr), jf::error);
}

// ---- without a GPU --------------------------------------------------------------------------

TEST(NoDevice, CudaUseThrowsNoDeviceWithAReason) {
  if (jf::cuda_available()) GTEST_SKIP() << "a GPU is present: the no-device path is not reachable";
  try {
    jf::detail::allocate(jf::cuda, 16);
    FAIL() << "expected jf::no_device";
  } catch (const jf::no_device& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no CUDA device: "), std::string::npos) << m;
    EXPECT_GT(m.size(), std::string("jetfuse: no CUDA device: ").size()) << "the reason is missing: " << m;
  }
  EXPECT_THROW(rt::require(), jf::no_device);
  EXPECT_THROW(rt::synchronize(), jf::no_device);
  EXPECT_THROW(rt::props(0), jf::no_device);
  EXPECT_THROW(rt::get_kernel("k", "extern \"C\" __global__ void k(){}", {}), jf::no_device);
  EXPECT_NO_THROW(rt::deallocate(nullptr));
}

TEST(NoDevice, OtherOrdinalsAreRefused) {
  EXPECT_THROW(jf::detail::allocate(jf::device{jf::device_kind::cuda, 1}, 16), jf::no_device);
}

// ---- NVRTC (no GPU needed) ------------------------------------------------------------------

#ifdef JF_HAVE_CUDA

TEST(Nvrtc, VersionIsKnown) {
  const int v = rt::nvrtc_version();
  EXPECT_GE(v, 11000);
  EXPECT_EQ(v % 10, 0);
}

TEST(Nvrtc, CompilesASmallKernelToAnElfCubin) {
  jf::reset_stats();
  const std::string src = fresh_tag() + fill_source_body;
  const std::vector<char> cubin = rt::nvrtc_compile(src, "sm_90", {});
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(std::string(cubin.data(), 4), "\x7f" "ELF");
  EXPECT_EQ(jf::stats().nvrtc_compiles, 1u);
  // The kernel's symbol is in the cubin under its unmangled extern "C" name.
  EXPECT_NE(std::string(cubin.begin(), cubin.end()).find("jf_test_fill"), std::string::npos);
}

TEST(Nvrtc, OptionsAreTheDocumentedOnes) {
  const std::string plain = rt::nvrtc_options_string("sm_90", {});
  EXPECT_NE(plain.find("--gpu-architecture=sm_90"), std::string::npos);
  EXPECT_NE(plain.find("-std=c++17"), std::string::npos);
  EXPECT_NE(plain.find("-DJF_NVRTC=1"), std::string::npos);
  EXPECT_EQ(plain.find("fast_math"), std::string::npos);
  EXPECT_NE(plain.find("--fmad=false"), std::string::npos) << "no fma contraction: matches the CPU evaluator";
  rt::compile_options fast;
  fast.fast_math = true;
  EXPECT_NE(rt::nvrtc_options_string("sm_90", fast).find("--use_fast_math"), std::string::npos);
  EXPECT_EQ(rt::nvrtc_options_string("sm_90", fast).find("--fmad=false"), std::string::npos);
}

TEST(Nvrtc, JfNvrtcIsDefinedAndFastMathChangesTheCode) {
  const std::string src = fresh_tag() + R"(
#ifndef JF_NVRTC
#error JF_NVRTC must be defined
#endif
struct args { float* x; long long n; };
extern "C" __global__ void jf_test_div(const args a) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.x[i] = sqrtf(a.x[i]) / (a.x[i] + 3.0f) + expf(a.x[i]);
}
)";
  rt::compile_options fast;
  fast.fast_math = true;
  const auto ieee = rt::nvrtc_compile(src, "sm_90", {});
  const auto approx = rt::nvrtc_compile(src, "sm_90", fast);
  EXPECT_NE(ieee, approx) << "--use_fast_math should change division, sqrt and exp";
  EXPECT_EQ(ieee, rt::nvrtc_compile(src, "sm_90", {})) << "compilation is deterministic";
}

TEST(Nvrtc, BrokenSourceThrowsCompileErrorWithSourceAndLog) {
  const std::string src = fresh_tag() + R"(
extern "C" __global__ void jf_test_broken(float* x) { x[0] = jf_undeclared_identifier_42; }
)";
  try {
    rt::nvrtc_compile(src, "sm_90", {});
    FAIL() << "expected jf::compile_error";
  } catch (const jf::compile_error& e) {
    EXPECT_EQ(e.source(), src);
    EXPECT_FALSE(e.log().empty());
    EXPECT_NE(e.log().find("jf_undeclared_identifier_42"), std::string::npos) << e.log();
    const std::string what = e.what();
    EXPECT_NE(what.find("sm_90"), std::string::npos) << what;
    EXPECT_NE(what.find(e.log()), std::string::npos);
  }
}

TEST(Nvrtc, VirtualArchitectureIsRejectedClearly) {
  EXPECT_THROW(rt::nvrtc_compile(fresh_tag() + fill_source_body, "sm_nonsense", {}), jf::compile_error);
}

#else  // CPU-only build

TEST(Nvrtc, CpuOnlyBuildHasNoCompiler) {
  EXPECT_THROW(rt::nvrtc_compile("extern \"C\" __global__ void k(){}", "sm_90", {}), jf::no_device);
  EXPECT_FALSE(rt::available());
  EXPECT_FALSE(jf::cuda_available());
}

#endif

// ---- GPU ------------------------------------------------------------------------------------

TEST(Gpu, Properties) {
  REQUIRE_GPU();
  const rt::device_props& p = rt::props(0);
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.sm_count, 0);
  EXPECT_GE(p.cc_major, 5);
  EXPECT_GT(p.max_threads_per_sm, 0);
  EXPECT_GT(p.total_memory, std::size_t(1) << 28);
  EXPECT_EQ(&rt::props(0), &p);
  EXPECT_NE(rt::current_stream(), nullptr);
  EXPECT_EQ(rt::current_stream(), rt::current_stream());
  void* other = nullptr;
  std::thread([&] { other = rt::current_stream(); }).join();
  EXPECT_NE(other, rt::current_stream()) << "one stream per host thread";
}

TEST(Gpu, AllocateAndCopyRoundTrip) {
  REQUIRE_GPU();
  jf::reset_stats();
  int allocations = 0;
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(1) << 20}) {
    const auto in = random_bytes(n);
    auto d1 = jf::detail::allocate(jf::cuda, n);
    auto d2 = jf::detail::allocate(jf::cuda, n);
    allocations += 2;
    ASSERT_NE(d1->ptr, nullptr);
    EXPECT_EQ(d1->dev, jf::cuda);
    jf::detail::copy_from_host(*d1, 0, in.data(), n);       // cpu -> cuda
    jf::detail::copy_bytes(*d2, 0, *d1, 0, n);              // cuda -> cuda
    auto h = jf::detail::allocate(jf::cpu, n);
    jf::detail::copy_bytes(*h, 0, *d2, 0, n);               // cuda -> cpu
    std::vector<unsigned char> out(n);
    if (n > 0) std::memcpy(out.data(), h->ptr, n);  // (no null pointers to memcpy, even for 0 bytes)
    EXPECT_EQ(out, in) << "size " << n;
    auto d3 = jf::detail::allocate(jf::cuda, n);
    ++allocations;
    jf::detail::copy_bytes(*d3, 0, *h, 0, n);               // cpu -> cuda via copy_bytes
    std::vector<unsigned char> back(n, 0);
    jf::detail::copy_to_host(back.data(), *d3, 0, n);
    EXPECT_EQ(back, in) << "size " << n;
  }
  EXPECT_EQ(jf::stats().device_allocations, static_cast<std::uint64_t>(allocations));
}

// Small blocks a thread frees come back to it for its next allocation of the same size (no driver
// call; src/cuda/block_cache.hpp), never to another thread, and carry what is written into them.
TEST(Gpu, SmallFreedBlocksComeBackToTheirThread) {
  REQUIRE_GPU();
  const std::size_t n = 1000 + rng()() % 1000;
  void* first = nullptr;
  {
    auto d = jf::detail::allocate(jf::cuda, n);
    first = d->ptr;
    const auto in = random_bytes(n);
    jf::detail::copy_from_host(*d, 0, in.data(), n);
  }  // freed: kept for this thread
  auto again = jf::detail::allocate(jf::cuda, n);
  EXPECT_EQ(again->ptr, first) << "the same size on the same thread: the kept block";
  const auto in = random_bytes(n);
  jf::detail::copy_from_host(*again, 0, in.data(), n);
  std::vector<unsigned char> out(n);
  jf::detail::copy_to_host(out.data(), *again, 0, n);
  EXPECT_EQ(out, in);
  auto other_size = jf::detail::allocate(jf::cuda, n + 1);
  EXPECT_NE(other_size->ptr, first);
  void* kept = nullptr;
  {
    auto d = jf::detail::allocate(jf::cuda, n + 7);
    kept = d->ptr;
  }  // kept for this thread: another thread never gets it
  void* theirs = nullptr;
  std::thread([&] {
    auto d = jf::detail::allocate(jf::cuda, n + 7);
    theirs = d->ptr;
  }).join();
  EXPECT_NE(theirs, kept);
  auto mine = jf::detail::allocate(jf::cuda, n + 7);
  EXPECT_EQ(mine->ptr, kept);
}

TEST(Gpu, OffsetsOverlapAndMemset) {
  REQUIRE_GPU();
  const std::size_t n = 1000 + rng()() % 1000;
  const auto in = random_bytes(n);
  auto d = jf::detail::allocate(jf::cuda, n);
  jf::detail::copy_from_host(*d, 0, in.data(), n);
  jf::detail::copy_bytes(*d, 3, *d, 0, n / 2);  // overlapping, within one device buffer
  std::vector<unsigned char> want = in;
  std::memmove(want.data() + 3, in.data(), n / 2);
  std::vector<unsigned char> got(n);
  jf::detail::copy_to_host(got.data(), *d, 0, n);
  EXPECT_EQ(got, want);
  const unsigned char v = static_cast<unsigned char>(1 + rng()() % 254);
  rt::memset_d8(static_cast<char*>(d->ptr) + 5, v, 11);
  jf::detail::copy_to_host(got.data(), *d, 0, n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], (i >= 5 && i < 16) ? v : want[i]) << i;
}

TEST(Gpu, AbsurdAllocationThrowsOutOfMemory) {
  REQUIRE_GPU();
  const std::size_t absurd = std::size_t(1) << 50;
  try {
    rt::allocate(absurd);
    FAIL() << "expected jf::out_of_memory";
  } catch (const jf::out_of_memory& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(absurd)), std::string::npos) << e.what();
  }
  auto ok = jf::detail::allocate(jf::cuda, 1 << 20);  // the pool still works afterwards
  EXPECT_NE(ok->ptr, nullptr);
}

TEST(Gpu, GetKernelLaunchAndMemoryCacheHit) {
  REQUIRE_GPU();
  jf::reset_stats();
  const std::string src = fresh_tag() + fill_source_body;
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  EXPECT_EQ(k.name, "jf_test_fill");
  EXPECT_NE(k.function, nullptr);
  EXPECT_EQ(jf::stats().nvrtc_compiles + jf::stats().disk_cache_hits, 1u);
  EXPECT_EQ(jf::stats().memory_cache_hits, 0u);
  const rt::kernel& again = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  EXPECT_EQ(&again, &k);
  EXPECT_EQ(jf::stats().memory_cache_hits, 1u);
  EXPECT_EQ(jf::stats().nvrtc_compiles + jf::stats().disk_cache_hits, 1u);
  const rt::kernel& other = *std::addressof(rt::get_kernel("jf_test_fill", src + "\n", {}));  // a different source
  EXPECT_NE(&other, &k);

  for (long long n : {1LL, 17LL, 1LL << 20, 1000003LL}) {
    auto d = jf::detail::allocate(jf::cuda, static_cast<std::size_t>(n) * sizeof(float));
    const float scale = static_cast<float>(rng()() % 7 + 1) * 0.25f, offset = static_cast<float>(rng()() % 100) - 50;
    fill_args a{static_cast<float*>(d->ptr), scale, offset, n};
    const auto launches = jf::stats().launches;
    rt::launch(k, static_cast<unsigned>(std::min<long long>((n + 255) / 256, 1024)), 256, &a, sizeof a);
    EXPECT_EQ(jf::stats().launches, launches + 1);
    std::vector<float> out(static_cast<std::size_t>(n));
    jf::detail::copy_to_host(out.data(), *d, 0, out.size() * sizeof(float));
    for (long long i = 0; i < n; ++i)
      ASSERT_EQ(out[static_cast<std::size_t>(i)], static_cast<float>(i) * scale + offset) << "n " << n << " i " << i;
  }
  rt::synchronize();
}

// Repeated launches of one kernel go through this thread's graph for it: each launch must run with
// its own arguments and grid even when the next launch re-parameterises the graph before the
// previous one ran (no synchronisation in between), and a return to earlier arguments too.
TEST(Gpu, RepeatedLaunchesThroughAGraphEachKeepTheirArguments) {
  REQUIRE_GPU();
  const std::string src = fresh_tag() + fill_source_body;
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  const std::uint64_t seed = rng()();
  std::mt19937_64 r(seed);
  SCOPED_TRACE("seed " + std::to_string(seed));
  struct launch_case {
    int buffer;
    float scale, offset;
    long long n;
    unsigned grid, block;
  };
  // Buffers 0-3; launches repeat arguments (graph hits), change them (re-parameterised), change
  // the grid and block, and come back; later launches overwrite earlier ones' buffers in part.
  std::vector<launch_case> cases;
  const long long sizes[4] = {1, 1000003, 257, 1 << 16};
  for (int i = 0; i < 40; ++i) {
    const int b = static_cast<int>(r() % 4);
    const bool repeat = i > 0 && r() % 3 == 0;
    launch_case c =
        repeat ? cases.back()
               : launch_case{b,        static_cast<float>(r() % 9) * 0.5f - 2, static_cast<float>(r() % 200) - 100,
                             sizes[b], static_cast<unsigned>(1 + r() % 300),   32u << (r() % 4)};
    if (!repeat && r() % 4 == 0) c.n = 1 + static_cast<long long>(r() % static_cast<std::uint64_t>(sizes[b]));
    cases.push_back(c);
  }
  std::vector<jf::detail::buffer_ptr> d;
  for (long long n : sizes) {
    d.push_back(jf::detail::allocate(jf::cuda, static_cast<std::size_t>(n) * sizeof(float)));
    rt::memset_d8(d.back()->ptr, 0xff, static_cast<std::size_t>(n) * sizeof(float));  // NaN: never written
  }
  jf::reset_stats();
  for (const launch_case& c : cases) {
    fill_args a{static_cast<float*>(d[static_cast<std::size_t>(c.buffer)]->ptr), c.scale, c.offset, c.n};
    const unsigned grid[3] = {c.grid, 1, 1}, block[3] = {c.block, 1, 1};
    rt::launch(k, grid, block, 0, &a);
    a = fill_args{nullptr, 0, 0, 0};  // the launch has taken its copy
  }
  const jf::stats_t s = jf::stats();
  EXPECT_EQ(s.launches, cases.size());
  if (rt::graph_launch_enabled())
    EXPECT_EQ(s.graph_launches, cases.size() - 1) << "the first launch is direct, the others through the graph";
  else
    EXPECT_EQ(s.graph_launches, 0u);
  // What each buffer must hold: the last launch's values where it wrote, earlier ones elsewhere.
  for (int b = 0; b < 4; ++b) {
    std::vector<float> want(static_cast<std::size_t>(sizes[b]), std::numeric_limits<float>::quiet_NaN());
    for (const launch_case& c : cases)
      if (c.buffer == b)
        for (long long i = 0; i < c.n; ++i)
          want[static_cast<std::size_t>(i)] = static_cast<float>(i) * c.scale + c.offset;
    std::vector<float> got(want.size());
    jf::detail::copy_to_host(got.data(), *d[static_cast<std::size_t>(b)], 0, got.size() * sizeof(float));
    for (std::size_t i = 0; i < want.size(); ++i)
      if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i]))))
        FAIL() << "buffer " << b << " element " << i << ": " << got[i] << " != " << want[i];
  }
}

// Threads launching the same kernel each use their own graph.
TEST(Gpu, ThreadsLaunchingOneKernelThroughGraphs) {
  REQUIRE_GPU();
  const std::string src = fresh_tag() + fill_source_body;
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const long long n = 5000 + t;
      std::vector<jf::detail::buffer_ptr> d;
      for (int i = 0; i < 8; ++i) d.push_back(jf::detail::allocate(jf::cuda, n * sizeof(float)));
      for (int i = 0; i < 8; ++i) {
        fill_args a{static_cast<float*>(d[static_cast<std::size_t>(i)]->ptr), static_cast<float>(t + 1),
                    static_cast<float>(i), n};
        rt::launch(k, 8, 128, &a, sizeof a);
      }
      bool all = true;
      for (int i = 0; i < 8; ++i) {
        std::vector<float> out(n);
        jf::detail::copy_to_host(out.data(), *d[static_cast<std::size_t>(i)], 0, n * sizeof(float));
        for (long long j = 0; j < n; ++j) all = all && out[j] == static_cast<float>(j) * (t + 1) + i;
      }
      ok[t] = all;
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
}

#ifdef JF_HAVE_CUDA  // needs the NVRTC option string
TEST(Gpu, DiskCacheIsUsedAndCorruptFilesAreRecompiled) {
  REQUIRE_GPU();
  const auto tmp = std::filesystem::temp_directory_path() / ("jf_rt_cache_" + std::to_string(rng()()));
  const char* old = std::getenv("JF_CACHE_DIR");
  const std::string saved = old ? old : "";
  ::setenv("JF_CACHE_DIR", tmp.c_str(), 1);
  EXPECT_EQ(rt::disk_cache_dir(), tmp.string());
  const rt::device_props& p = rt::props(0);
  const std::string arch = "sm_" + std::to_string(p.cc_major) + std::to_string(p.cc_minor);
  const std::string options = rt::nvrtc_options_string(arch, {});

  // Stored by "another process": loaded from disk, not compiled.
  const std::string src1 = fresh_tag() + fill_source_body;
  const std::string key1 = jf::disk_cache::full_key(src1, options, rt::nvrtc_version(), arch);
  jf::disk_cache::store(tmp.string(), key1, rt::nvrtc_compile(src1, arch, {}));
  jf::reset_stats();
  const rt::kernel& k1 = *std::addressof(rt::get_kernel("jf_test_fill", src1, {}));
  EXPECT_EQ(jf::stats().disk_cache_hits, 1u);
  EXPECT_EQ(jf::stats().nvrtc_compiles, 0u);

  // A corrupt file: rejected, compiled, and replaced by a good one.
  const std::string src2 = fresh_tag() + fill_source_body;
  const std::string key2 = jf::disk_cache::full_key(src2, options, rt::nvrtc_version(), arch);
  std::filesystem::create_directories(tmp);
  {
    std::FILE* f = std::fopen((tmp / jf::disk_cache::file_name(key2)).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("JFKC garbage", f);
    std::fclose(f);
  }
  jf::reset_stats();
  const rt::kernel& k2 = *std::addressof(rt::get_kernel("jf_test_fill", src2, {}));
  EXPECT_EQ(jf::stats().disk_cache_rejects, 1u);
  EXPECT_EQ(jf::stats().nvrtc_compiles, 1u);
  EXPECT_TRUE(jf::disk_cache::load(tmp.string(), key2).has_value()) << "the good cubin was stored";

  // Both kernels work.
  for (const rt::kernel* k : {&k1, &k2}) {
    const long long n = 999;
    auto d = jf::detail::allocate(jf::cuda, n * sizeof(float));
    fill_args a{static_cast<float*>(d->ptr), 2.0f, -1.0f, n};
    rt::launch(*k, 4, 256, &a, sizeof a);
    std::vector<float> out(n);
    jf::detail::copy_to_host(out.data(), *d, 0, n * sizeof(float));
    EXPECT_EQ(out[998], 998 * 2.0f - 1.0f);
  }
  if (old) ::setenv("JF_CACHE_DIR", saved.c_str(), 1);
  else ::unsetenv("JF_CACHE_DIR");
  std::error_code ec;
  std::filesystem::remove_all(tmp, ec);
}
#endif

TEST(Gpu, CompileErrorAndMissingKernelName) {
  REQUIRE_GPU();
  try {
    rt::get_kernel("jf_test_bad", fresh_tag() + "extern \"C\" __global__ void jf_test_bad() { undeclared_x = 1; }", {});
    FAIL() << "expected jf::compile_error";
  } catch (const jf::compile_error& e) {
    EXPECT_NE(std::string(e.what()).find("jf_test_bad"), std::string::npos) << e.what();
    EXPECT_NE(e.log().find("undeclared_x"), std::string::npos) << e.log();
  }
  EXPECT_THROW(rt::get_kernel("jf_not_there", fresh_tag() + fill_source_body, {}), jf::cuda_error);
}

TEST(Gpu, ThreadsUseTheirOwnStreamsAndFreeAcrossThreads) {
  REQUIRE_GPU();
  const std::string src = fresh_tag() + fill_source_body;
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  std::vector<jf::detail::buffer_ptr> made(4);
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const long long n = 100000 + t;
      auto d = jf::detail::allocate(jf::cuda, n * sizeof(float));
      fill_args a{static_cast<float*>(d->ptr), 1.0f, static_cast<float>(t), n};
      rt::launch(k, 64, 256, &a, sizeof a);
      std::vector<float> out(n);
      jf::detail::copy_to_host(out.data(), *d, 0, n * sizeof(float));
      ok[t] = out[0] == static_cast<float>(t) && out[n - 1] == static_cast<float>(n - 1 + t);
      made[t] = d;  // freed on the main thread below
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << "thread " << t;
  made.clear();
  rt::synchronize();
  auto d = jf::detail::allocate(jf::cuda, 64);
  EXPECT_NE(d->ptr, nullptr);
}

// A trapping kernel poisons the CUDA context, so it runs in a child process (re-executed, not
// forked: a forked child cannot use CUDA).
TEST(GpuDeathTest, TrappingKernelIsNamedInTheError) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        try {
          const rt::kernel& k = *std::addressof(rt::get_kernel(
              "jf_test_trap", fresh_tag() + "extern \"C\" __global__ void jf_test_trap(const int a) { if (a) __trap(); }",
              {}));
          const int one = 1;
          rt::launch(k, 1, 32, &one, sizeof one);
          rt::synchronize();
        } catch (const jf::cuda_error& e) {
          std::fprintf(stderr, "%s\n", e.what());
          std::exit(3);
        }
        std::exit(0);
      },
      ::testing::ExitedWithCode(3), "jf_test_trap");
}

}  // namespace
