// Where a kernel's cubin comes from (cuda_rt::load_or_compile): a disk cache entry that loads but
// lacks the kernel is a miss that is compiled again and rewritten, never an error on every run.
// The order of the steps is tested with stand-ins (no GPU); the end-to-end case needs a GPU.
#include <gtest/gtest.h>

#include "fill_kernel.hpp"
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <jetfuse/buffer.hpp>
#include <jetfuse/device.hpp>
#include <jetfuse/errors.hpp>
#include <jetfuse/stats.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cuda/disk_cache.hpp"
#include "cuda/load_or_compile.hpp"
#include "cuda/runtime.hpp"
#ifdef JF_HAVE_CUDA
#include "cuda/nvrtc_options.hpp"
#endif

namespace rt = jf::cuda_rt;
namespace fs = std::filesystem;

namespace {

// ---- the order of the steps, with stand-ins for the disk cache, NVRTC and the driver --------

// A cubin is a string here; a "module" holds the kernel when the cubin contains its name.
struct fake {
  std::optional<std::vector<char>> cached;
  std::vector<char> compiled;
  std::string kernel = "jf_kernel";
  int compiles = 0, loads = 0;
  std::vector<std::vector<char>> written;

  static std::vector<char> cubin(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }

  rt::cubin_origin run() {
    return rt::load_or_compile({
        [this] { return cached; },
        [this] {
          ++compiles;
          return compiled;
        },
        [this](const std::vector<char>& c, bool must_succeed) {
          ++loads;
          if (std::string(c.begin(), c.end()).find(kernel) != std::string::npos) return true;
          if (must_succeed) throw jf::cuda_error("jetfuse: kernel " + kernel + " not found in its compiled module");
          return false;
        },
        [this](const std::vector<char>& c) { written.push_back(c); },
    });
  }
};

TEST(LoadOrCompile, GoodEntryIsUsedWithoutCompiling) {
  fake f;
  f.cached = fake::cubin("module with jf_kernel");
  const auto rejects = jf::stats().disk_cache_rejects;
  EXPECT_EQ(f.run(), rt::cubin_origin::disk_cache);
  EXPECT_EQ(f.compiles, 0);
  EXPECT_TRUE(f.written.empty());
  EXPECT_EQ(jf::stats().disk_cache_rejects, rejects);
}

TEST(LoadOrCompile, EntryLackingTheKernelIsRecompiledAndRewritten) {
  fake f;
  f.cached = fake::cubin("module with jf_other");
  f.compiled = fake::cubin("fresh module with jf_kernel");
  const auto rejects = jf::stats().disk_cache_rejects;
  EXPECT_EQ(f.run(), rt::cubin_origin::compiled);  // before: cuda_error on every run
  EXPECT_EQ(f.compiles, 1);
  EXPECT_EQ(f.loads, 2);
  ASSERT_EQ(f.written.size(), 1u);
  EXPECT_EQ(f.written[0], f.compiled);
  EXPECT_EQ(jf::stats().disk_cache_rejects, rejects + 1);
  // The next run finds the rewritten entry.
  fake next;
  next.cached = f.written[0];
  EXPECT_EQ(next.run(), rt::cubin_origin::disk_cache);
  EXPECT_EQ(next.compiles, 0);
}

TEST(LoadOrCompile, MissIsCompiledAndStored) {
  fake f;
  f.compiled = fake::cubin("jf_kernel");
  const auto rejects = jf::stats().disk_cache_rejects;
  EXPECT_EQ(f.run(), rt::cubin_origin::compiled);
  EXPECT_EQ(f.compiles, 1);
  ASSERT_EQ(f.written.size(), 1u);
  EXPECT_EQ(jf::stats().disk_cache_rejects, rejects);
}

TEST(LoadOrCompile, FreshCubinLackingTheKernelThrowsAndIsNotStored) {
  fake f;
  f.cached = fake::cubin("stale");
  f.compiled = fake::cubin("module with jf_other");
  EXPECT_THROW(f.run(), jf::cuda_error);
  EXPECT_EQ(f.compiles, 1);
  EXPECT_TRUE(f.written.empty()) << "a cubin that lacks its kernel must not be cached";
}

TEST(LoadOrCompile, CompileErrorPropagatesAndNothingIsStored) {
  bool wrote = false;
  EXPECT_THROW(rt::load_or_compile({
                   [] { return std::optional<std::vector<char>>(); },
                   []() -> std::vector<char> { throw jf::compile_error("jetfuse: bad", "src", "log"); },
                   [](const std::vector<char>&, bool) { return true; },
                   [&](const std::vector<char>&) { wrote = true; },
               }),
               jf::compile_error);
  EXPECT_FALSE(wrote);
}

// ---- end to end on a GPU ------------------------------------------------------------------------

#ifdef JF_HAVE_CUDA  // needs the NVRTC option string

#define REQUIRE_GPU() \
  if (!jf::cuda_available()) GTEST_SKIP() << "no CUDA GPU or driver on this machine: GPU test skipped"

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

using jf_test::fill_args;
using jf_test::fill_source_body;

// JF_CACHE_DIR pointed at a fresh directory for the test's duration.
class scoped_cache_dir {
 public:
  scoped_cache_dir() : path_(fs::temp_directory_path() / ("jf_load_or_compile_" + std::to_string(rng()()))) {
    const char* old = std::getenv("JF_CACHE_DIR");
    had_ = old != nullptr;
    if (old) saved_ = old;
    ::setenv("JF_CACHE_DIR", path_.c_str(), 1);
  }
  ~scoped_cache_dir() {
    if (had_)
      ::setenv("JF_CACHE_DIR", saved_.c_str(), 1);
    else
      ::unsetenv("JF_CACHE_DIR");
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool had_ = false;
  std::string saved_;
};

std::string arch_of_device() {
  const rt::device_props& p = rt::props(0);
  return "sm_" + std::to_string(p.cc_major) + std::to_string(p.cc_minor);
}

void expect_fill_works(const rt::kernel& k) {
  const long long n = 999;
  auto d = jf::detail::allocate(jf::cuda, n * sizeof(float));
  fill_args a{static_cast<float*>(d->ptr), 3.0f, -2.0f, n};
  rt::launch(k, 4, 256, &a, sizeof a);
  std::vector<float> out(n);
  jf::detail::copy_to_host(out.data(), *d, 0, n * sizeof(float));
  for (long long i = 0; i < n; i += 97) EXPECT_EQ(out[i], static_cast<float>(i) * 3.0f - 2.0f) << i;
}

// The child half of the test below: a later process loads the rewritten entry from disk.
TEST(LoadOrCompileGpu, ChildProcessLoadsTheRewrittenEntry) {
  const char* src_file = std::getenv("JF_TEST_CHILD_SOURCE");
  if (!src_file) GTEST_SKIP() << "runs only as the child process of EntryLackingTheKernelIsRecompiledAndRewritten";
  REQUIRE_GPU();
  std::ifstream in(src_file);
  const std::string src((std::istreambuf_iterator<char>(in)), {});
  jf::reset_stats();
  const rt::kernel& k = *std::addressof(rt::get_kernel("jf_test_fill", src, {}));
  EXPECT_EQ(jf::stats().disk_cache_hits, 1u);
  EXPECT_EQ(jf::stats().nvrtc_compiles, 0u);
  EXPECT_EQ(jf::stats().disk_cache_rejects, 0u);
  expect_fill_works(k);
  if (!::testing::Test::HasFailure()) std::ofstream(std::string(src_file) + ".ok") << "ok";
}

TEST(LoadOrCompileGpu, EntryLackingTheKernelIsRecompiledAndRewritten) {
  REQUIRE_GPU();
  scoped_cache_dir cache;
  const std::string arch = arch_of_device();
  const std::string options = rt::nvrtc_options_string(arch, {});
  const std::string tag = "// tag " + std::to_string(rng()()) + "\n";
  const std::string src = tag + fill_source_body;
  const std::string key = jf::disk_cache::full_key(src, options, rt::nvrtc_version(), arch);

  // A valid entry (right key, right digest, a real cubin) whose module lacks jf_test_fill: the
  // issue's kernel that writes 42 under another name.
  const std::vector<char> wrong =
      rt::nvrtc_compile(tag + "extern \"C\" __global__ void jf_test_other(float* p) { *p = 42.0f; }", arch, {});
  jf::disk_cache::store(cache.path().string(), key, wrong);
  ASSERT_TRUE(jf::disk_cache::load(cache.path().string(), key).has_value());

  jf::reset_stats();
  const rt::kernel* k = nullptr;
  ASSERT_NO_THROW(k = &rt::get_kernel("jf_test_fill", src, {}));  // before: jf::cuda_error, on every run
  EXPECT_EQ(jf::stats().disk_cache_rejects, 1u);
  EXPECT_EQ(jf::stats().nvrtc_compiles, 1u);
  EXPECT_EQ(jf::stats().disk_cache_hits, 0u);
  expect_fill_works(*k);

  const auto rewritten = jf::disk_cache::load(cache.path().string(), key);
  ASSERT_TRUE(rewritten.has_value());
  EXPECT_NE(*rewritten, wrong);
  const std::string name = "jf_test_fill";
  EXPECT_NE(std::search(rewritten->begin(), rewritten->end(), name.begin(), name.end()), rewritten->end())
      << "the rewritten cubin should name the kernel";

  // A later process: loads it from disk, no compile, no reject.
  const fs::path src_file = cache.path() / "child_source.cu";
  std::ofstream(src_file) << src;
  ::setenv("JF_TEST_CHILD_SOURCE", src_file.c_str(), 1);
  std::string filter = "--gtest_filter=LoadOrCompileGpu.ChildProcessLoadsTheRewrittenEntry";
  char* argv[] = {const_cast<char*>("/proc/self/exe"), filter.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::unsetenv("JF_TEST_CHILD_SOURCE");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child failed";
  EXPECT_TRUE(fs::exists(src_file.string() + ".ok")) << "the child process did not load the entry from disk";
}

#endif  // JF_HAVE_CUDA

}  // namespace
