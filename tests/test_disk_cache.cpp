// The on-disk kernel cache: round trips, rejection of foreign, truncated and corrupt files, atomic
// concurrent writes from threads and processes, and silent failure on unwritable directories.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <jetfuse/stats.hpp>

#include "cuda/disk_cache.hpp"

namespace fs = std::filesystem;
namespace dc = jf::disk_cache;

namespace {

std::mt19937_64& rng() {
  static std::mt19937_64 r(std::random_device{}());
  return r;
}

std::vector<char> random_bytes(std::size_t n) {
  std::vector<char> v(n);
  for (auto& c : v) c = static_cast<char>(rng()() & 0xff);
  return v;
}

std::string random_key() {
  std::vector<char> src = random_bytes(1 + rng()() % 300);
  return dc::full_key("extern \"C\" __global__ void k(){}//" + std::string(src.begin(), src.end()),
                      "--gpu-architecture=sm_90 -std=c++17", 13000, "sm_90");
}

// A fresh directory per test, removed afterwards.
class DiskCache : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("jf_disk_cache_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(rng()()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir() const { return dir_.string(); }
  fs::path file_of(const std::string& key) const { return dir_ / dc::file_name(key); }

  static std::vector<char> read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
  }
  static void write(const fs::path& p, const std::vector<char>& data) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
  }

  fs::path dir_;
};

TEST_F(DiskCache, FileNameIsSixteenHexDigitsOfTheFullKey) {
  const std::string k = random_key();
  const std::string name = dc::file_name(k);
  ASSERT_EQ(name.size(), 16u + 6u);
  EXPECT_EQ(name.substr(16), ".cubin");
  EXPECT_EQ(name.find_first_not_of("0123456789abcdef"), 16u);
  EXPECT_EQ(dc::file_name(k), name);
  EXPECT_NE(dc::file_name(k + "x"), name);
}

TEST_F(DiskCache, FullKeySeparatesEveryPart) {
  const std::string a = dc::full_key("src", "opt", 13000, "sm_90");
  EXPECT_NE(a, dc::full_key("src", "opt", 13000, "sm_80"));
  EXPECT_NE(a, dc::full_key("src", "opt", 12080, "sm_90"));
  EXPECT_NE(a, dc::full_key("src", "opt --use_fast_math", 13000, "sm_90"));
  EXPECT_NE(a, dc::full_key("src2", "opt", 13000, "sm_90"));
  EXPECT_NE(dc::full_key("ab", "c", 1, "x"), dc::full_key("a", "bc", 1, "x"));  // separators matter
  EXPECT_EQ(a, dc::full_key("src", "opt", 13000, "sm_90"));
}

TEST_F(DiskCache, RoundTripOfRandomPayloads) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(17), std::size_t(100003)}) {
    const std::string k = random_key() + std::to_string(n);
    const std::vector<char> payload = random_bytes(n);
    EXPECT_FALSE(dc::load(dir(), k).has_value()) << "nothing stored yet";
    dc::store(dir(), k, payload);
    ASSERT_TRUE(fs::exists(file_of(k)));
    const auto got = dc::load(dir(), k);
    ASSERT_TRUE(got.has_value()) << "size " << n;
    EXPECT_EQ(*got, payload);
  }
  // Only the final files remain: no temporaries left behind.
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().extension(), ".cubin") << e.path();
    ++files;
  }
  EXPECT_EQ(files, 4u);
}

TEST_F(DiskCache, OverwriteReplacesThePayload) {
  const std::string k = random_key();
  dc::store(dir(), k, random_bytes(50));
  const std::vector<char> second = random_bytes(77);
  dc::store(dir(), k, second);
  const auto got = dc::load(dir(), k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, second);
}

TEST_F(DiskCache, MissingFileIsAMissNotAReject) {
  const auto before = jf::stats().disk_cache_rejects;
  EXPECT_FALSE(dc::load(dir(), random_key()).has_value());
  EXPECT_FALSE(dc::load((dir_ / "does/not/exist").string(), random_key()).has_value());
  EXPECT_EQ(jf::stats().disk_cache_rejects, before);
}

TEST_F(DiskCache, ForeignKeyUnderTheSameFileNameIsRejected) {
  // A hash collision: the file named after key B holds an entry for key A.
  const std::string a = random_key(), b = random_key() + "other";
  ASSERT_NE(a, b);
  const std::vector<char> payload = random_bytes(123);
  dc::store(dir(), a, payload);
  fs::rename(file_of(a), file_of(b));
  const auto before = jf::stats().disk_cache_rejects;
  EXPECT_FALSE(dc::load(dir(), b).has_value());
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
  // The same bytes are accepted under the right name (the file itself is intact).
  fs::rename(file_of(b), file_of(a));
  const auto got = dc::load(dir(), a);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
}

TEST_F(DiskCache, KeyThatIsAPrefixOfTheStoredKeyIsRejected) {
  const std::string a = random_key();
  const std::string shorter = a.substr(0, a.size() - 1);
  dc::store(dir(), a, random_bytes(40));
  fs::rename(file_of(a), file_of(shorter));
  EXPECT_FALSE(dc::load(dir(), shorter).has_value());
}

TEST_F(DiskCache, EveryTruncationIsRejected) {
  const std::string k = random_key();
  const std::vector<char> payload = random_bytes(200);
  dc::store(dir(), k, payload);
  const std::vector<char> whole = read(file_of(k));
  ASSERT_GT(whole.size(), payload.size() + k.size());
  const auto before = jf::stats().disk_cache_rejects;
  for (std::size_t len = 0; len < whole.size(); ++len) {
    write(file_of(k), std::vector<char>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(len)));
    ASSERT_FALSE(dc::load(dir(), k).has_value()) << "truncated to " << len << " of " << whole.size();
  }
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + whole.size());
  // Trailing garbage is rejected too.
  std::vector<char> longer = whole;
  longer.push_back('x');
  write(file_of(k), longer);
  EXPECT_FALSE(dc::load(dir(), k).has_value());
  write(file_of(k), whole);
  const auto got = dc::load(dir(), k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
}

TEST_F(DiskCache, EveryFlippedByteIsRejected) {
  const std::string k = random_key();
  dc::store(dir(), k, random_bytes(64));
  const std::vector<char> whole = read(file_of(k));
  for (std::size_t i = 0; i < whole.size(); ++i) {
    std::vector<char> bad = whole;
    bad[i] = static_cast<char>(bad[i] ^ (1 << (rng()() % 8)));
    write(file_of(k), bad);
    ASSERT_FALSE(dc::load(dir(), k).has_value()) << "byte " << i << " of " << whole.size() << " flipped";
  }
}

TEST_F(DiskCache, GarbageFilesAreRejected) {
  const std::string k = random_key();
  for (std::size_t n : {1u, 7u, 8u, 16u, 31u, 1000u, 65536u}) {
    write(file_of(k), random_bytes(n));
    EXPECT_FALSE(dc::load(dir(), k).has_value()) << n << " random bytes";
  }
  // A valid header claiming an enormous key or payload must not allocate or crash.
  std::vector<char> huge = {'J', 'F', 'K', 'C', 1, 0, 0, 0};
  for (int i = 0; i < 8; ++i) huge.push_back(static_cast<char>(0xff));
  write(file_of(k), huge);
  EXPECT_FALSE(dc::load(dir(), k).has_value());
  // A directory where the file should be.
  fs::remove(file_of(k));
  fs::create_directory(file_of(k));
  EXPECT_FALSE(dc::load(dir(), k).has_value());
}

TEST_F(DiskCache, UnwritableDirectoryIsIgnored) {
  // A path below a regular file can never be created, even by root.
  const fs::path blocker = dir_ / "plain_file";
  write(blocker, random_bytes(3));
  const std::string bad_dir = (blocker / "cache").string();
  const std::string k = random_key();
  EXPECT_NO_THROW(dc::store(bad_dir, k, random_bytes(10)));
  EXPECT_FALSE(dc::load(bad_dir, k).has_value());
  // The empty directory means "disabled".
  EXPECT_NO_THROW(dc::store("", k, random_bytes(10)));
  EXPECT_FALSE(dc::load("", k).has_value());
}

TEST_F(DiskCache, CreatesMissingDirectories) {
  const std::string nested = (dir_ / "a" / "b" / "c").string();
  const std::string k = random_key();
  const std::vector<char> payload = random_bytes(33);
  dc::store(nested, k, payload);
  const auto got = dc::load(nested, k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
}

TEST_F(DiskCache, ConcurrentWritersAndReadersSeeOnlyCompleteFiles) {
  const std::string k = random_key();
  const std::vector<char> payload = random_bytes(50000);
  constexpr int n_procs = 3, n_threads = 4, rounds = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < n_procs; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {  // child: store repeatedly, exit without running gtest's teardown
      for (int r = 0; r < rounds; ++r) dc::store(dir(), k, payload);
      const auto got = dc::load(dir(), k);
      ::_exit(got && *got == payload ? 0 : 1);
    }
    children.push_back(pid);
  }
  std::atomic<int> bad{0}, hits{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < rounds; ++r) {
        dc::store(dir(), k, payload);
        if (auto got = dc::load(dir(), k)) {
          ++hits;
          if (*got != payload) ++bad;
        } else {
          ++bad;  // this thread stored a complete file before: a later load must find one
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << pid << " saw a bad file";
  }
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(hits.load(), n_threads * rounds);
  const auto got = dc::load(dir(), k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1u) << "temporary files were left behind";
}

TEST(DiskCacheDirectory, EnvironmentPrecedence) {
  // Saved and restored: other tests of this process may read these variables.
  auto save = [](const char* n) -> std::pair<bool, std::string> {
    const char* v = std::getenv(n);
    return {v != nullptr, v ? v : ""};
  };
  auto restore = [](const char* n, const std::pair<bool, std::string>& v) {
    if (v.first) ::setenv(n, v.second.c_str(), 1);
    else ::unsetenv(n);
  };
  const auto a = save("JF_CACHE_DIR"), b = save("XDG_CACHE_HOME"), c = save("HOME"), d = save("JF_DISABLE_DISK_CACHE");
  ::unsetenv("JF_DISABLE_DISK_CACHE");
  ::setenv("JF_CACHE_DIR", "/tmp/jf_a", 1);
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  ::setenv("HOME", "/tmp/home", 1);
  EXPECT_EQ(dc::directory_from_environment(), "/tmp/jf_a");
  ::unsetenv("JF_CACHE_DIR");
  EXPECT_EQ(dc::directory_from_environment(), "/tmp/xdg/jetfuse");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(dc::directory_from_environment(), "/tmp/home/.cache/jetfuse");
  ::setenv("JF_DISABLE_DISK_CACHE", "0", 1);
  EXPECT_EQ(dc::directory_from_environment(), "/tmp/home/.cache/jetfuse");
  ::setenv("JF_DISABLE_DISK_CACHE", "1", 1);
  EXPECT_EQ(dc::directory_from_environment(), "");
  restore("JF_CACHE_DIR", a);
  restore("XDG_CACHE_HOME", b);
  restore("HOME", c);
  restore("JF_DISABLE_DISK_CACHE", d);
}

}  // namespace
