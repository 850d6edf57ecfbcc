// The on-disk kernel cache: round trips, rejection of foreign, truncated, corrupt and forged files,
// atomic concurrent writes from threads and processes, silent failure on unwritable directories,
// and the trust rules: modes 0700/0600, no links or FIFOs followed or waited on, bounded size, and
// directories or entries of other users or writable by group/others refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <jetfuse/stats.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/sha256.hpp"
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
    dir_ = fs::temp_directory_path() / ("jf_disk_cache_" + std::to_string(::getpid()) + "_" + std::to_string(rng()()) +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    fs::permissions(dir_, fs::perms::owner_all);  // whatever the umask: a group-writable dir is refused
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

// hash64 names files and buckets: a change of any one byte, of the length or of the seed changes it
// (checked on every byte of keys of lengths around its 32-byte lanes), and it does not depend on
// where the key lies in memory. The reference value pins it (file names must not change silently);
// it was computed by a separate Python transcription of the algorithm (four 8-byte little-endian
// lanes, x = (x ^ w) * 0x9e3779b97f4a7c15, x ^= x >> 29; MurmurHash3's fmix64 to finish).
TEST(DiskCacheHash, Hash64SeesEveryByteAndTheLength) {
  std::string key(200, '\0');
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<char>(i * 37 + 11);
  for (std::size_t n : {0u, 1u, 7u, 8u, 31u, 32u, 33u, 63u, 64u, 65u, 200u}) {
    const std::uint64_t h = dc::hash64(key.data(), n);
    if (n > 0) {
      EXPECT_NE(dc::hash64(key.data(), n - 1), h) << n;
    }
    EXPECT_NE(dc::hash64(key.data(), n, 1), h) << n;
    const std::string copy = " " + key.substr(0, n);  // another alignment
    EXPECT_EQ(dc::hash64(copy.data() + 1, n), h) << n;
    for (std::size_t i = 0; i < n; ++i)
      for (int bit : {0, 7}) {
        std::string changed = key.substr(0, n);
        changed[i] = static_cast<char>(changed[i] ^ (1 << bit));
        ASSERT_NE(dc::hash64(changed.data(), n), h) << "byte " << i << " bit " << bit << " of " << n;
      }
  }
  EXPECT_EQ(dc::hash64("jetfuse", 7), dc::hash64(std::string("jetfuse").data(), 7));
  EXPECT_EQ(dc::hash64(key.data(), 200), 0x86190a14a3e1d31bull);
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

// ---- trust: file types, sizes, forged entries, modes and owners --------------------------------

// "0700": the permission bits in octal, as chmod takes them.
std::string mode_of(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  char buf[16];
  std::snprintf(buf, sizeof buf, "0%o", static_cast<unsigned>(st.st_mode & 07777));
  return buf;
}

// The cache's layout up to (not including) its trailer, as the format documents it.
std::vector<char> entry_body(std::uint32_t version, const std::string& key, const std::vector<char>& payload) {
  std::vector<char> out = {'J', 'F', 'K', 'C'};
  auto put = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  put(version, 4);
  put(key.size(), 8);
  out.insert(out.end(), key.begin(), key.end());
  put(payload.size(), 8);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// What an attacker (or a stale tool) writes: the format-1 trailer, FNV-1a of the bytes before it.
std::vector<char> with_fnv_checksum(std::vector<char> body, std::size_t pad_to = 8) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : body) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  for (int i = 0; i < 8; ++i) body.push_back(static_cast<char>((h >> (8 * i)) & 0xff));
  for (std::size_t i = 8; i < pad_to; ++i) body.push_back(0);
  return body;
}

std::vector<char> with_sha256(std::vector<char> body) {
  const auto d = jf::detail::sha256::of(body.data(), body.size());
  body.insert(body.end(), d.begin(), d.end());
  return body;
}

// A load() on another thread, with a deadline: a blocked open() on a FIFO is released by opening
// its write end, so that a regression fails the test instead of hanging it.
struct timed_load {
  bool finished_in_time = false;
  bool hit = false;
};
timed_load load_with_deadline(const std::string& dir, const std::string& key, const fs::path& fifo) {
  std::promise<bool> result;
  std::future<bool> got = result.get_future();
  std::thread t([&] { result.set_value(dc::load(dir, key).has_value()); });
  timed_load r;
  r.finished_in_time = got.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  while (got.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // ENXIO until a reader waits
    if (w >= 0) ::close(w);
  }
  t.join();
  r.hit = got.get();
  return r;
}

TEST_F(DiskCache, FifoNamedLikeAnEntryNeverBlocksAndIsReplaced) {
  const std::string k = random_key();
  ASSERT_EQ(::mkfifo(file_of(k).c_str(), 0600), 0);
  const auto before = jf::stats().disk_cache_rejects;
  const timed_load r = load_with_deadline(dir(), k, file_of(k));
  EXPECT_TRUE(r.finished_in_time) << "load() blocked on a FIFO named like an entry";
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
  const std::vector<char> payload = random_bytes(99);
  dc::store(dir(), k, payload);  // rename replaces the FIFO itself
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(file_of(k))));
  const auto got = dc::load(dir(), k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, payload);
}

TEST_F(DiskCache, SymlinkIsNeverFollowedEvenToAValidEntry) {
  const std::string k = random_key();
  const fs::path elsewhere = dir_ / "elsewhere";
  fs::create_directory(elsewhere);
  fs::permissions(elsewhere, fs::perms::owner_all);
  const std::vector<char> payload = random_bytes(150);
  dc::store(elsewhere.string(), k, payload);
  const std::vector<char> target_bytes = read(elsewhere / dc::file_name(k));
  fs::create_symlink(elsewhere / dc::file_name(k), file_of(k));
  const auto before = jf::stats().disk_cache_rejects;
  EXPECT_FALSE(dc::load(dir(), k).has_value()) << "a symlink was followed";
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
  // Storing replaces the link, not the file it points to.
  const std::vector<char> other = random_bytes(60);
  dc::store(dir(), k, other);
  EXPECT_FALSE(fs::is_symlink(file_of(k)));
  EXPECT_EQ(read(elsewhere / dc::file_name(k)), target_bytes);
  ASSERT_TRUE(dc::load(dir(), k).has_value());
  EXPECT_EQ(*dc::load(dir(), k), other);
}

TEST_F(DiskCache, OversizedEntriesAreNeitherReadNorWritten) {
  const std::string k = random_key();
  {  // sparse: costs no disk; load() must look at the size before reading or allocating
    const int fd = ::open(file_of(k).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(dc::max_entry_bytes) + 1), 0);
    ::close(fd);
  }
  const auto before = jf::stats().disk_cache_rejects;
  EXPECT_FALSE(dc::load(dir(), k).has_value());
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
  fs::remove(file_of(k));
  dc::store(dir(), k, std::vector<char>(dc::max_entry_bytes, 'x'));  // would never be accepted: not written
  EXPECT_FALSE(fs::exists(file_of(k)));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 0u) << "a temporary file was left behind";
}

TEST_F(DiskCache, ForgedEntryWithARecomputedChecksumIsRejected) {
  // The end-to-end attack: the payload of a good entry replaced (a kernel that writes 42
  // instead of x*3-2) and the old-style checksum recomputed so that the file looks intact.
  const std::string k = random_key();
  const std::vector<char> good = random_bytes(300);
  dc::store(dir(), k, good);
  const std::vector<char> evil = random_bytes(300);
  const std::vector<std::vector<char>> forgeries = {
      with_fnv_checksum(entry_body(1, k, evil)),                       // format 1 exactly
      with_fnv_checksum(entry_body(dc::format_version, k, evil)),      // current version, old trailer
      with_fnv_checksum(entry_body(dc::format_version, k, evil), 32),  // old checksum in the digest's place
      with_fnv_checksum(entry_body(dc::format_version, k, good), 32),  // even over the genuine payload
  };
  for (std::size_t i = 0; i < forgeries.size(); ++i) {
    write(file_of(k), forgeries[i]);
    fs::permissions(file_of(k), fs::perms::owner_read | fs::perms::owner_write);
    const auto before = jf::stats().disk_cache_rejects;
    EXPECT_FALSE(dc::load(dir(), k).has_value()) << "forgery " << i << " was loaded";
    EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1) << "forgery " << i;
  }
  // Control: the same layout with the SHA-256 trailer loads, so it was the digest that refused the
  // forgeries. (The same user can compute it too: that user is trusted, see disk_cache.hpp.)
  write(file_of(k), with_sha256(entry_body(dc::format_version, k, evil)));
  const auto got = dc::load(dir(), k);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, evil);
}

TEST_F(DiskCache, DirectoriesAre0700AndEntries0600WhateverTheUmask) {
  const mode_t old_umask = ::umask(0);  // the most permissive umask: modes must not depend on it
  const fs::path nested = dir_ / "a" / "b";
  const std::string k = random_key();
  dc::store(nested.string(), k, random_bytes(20));
  ::umask(old_umask);
  EXPECT_EQ(mode_of(dir_ / "a"), "0700");
  EXPECT_EQ(mode_of(nested), "0700");
  EXPECT_EQ(mode_of(nested / dc::file_name(k)), "0600");
  struct stat st {};
  ASSERT_EQ(::stat((nested / dc::file_name(k)).c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, ::geteuid());
  EXPECT_TRUE(dc::load(nested.string(), k).has_value());
}

TEST_F(DiskCache, EntryWritableByGroupOrOthersIsRejected) {
  const std::string k = random_key();
  const std::vector<char> payload = random_bytes(70);
  dc::store(dir(), k, payload);
  for (mode_t m : {0620, 0602, 0666}) {
    ASSERT_EQ(::chmod(file_of(k).c_str(), m), 0);
    const auto before = jf::stats().disk_cache_rejects;
    EXPECT_FALSE(dc::load(dir(), k).has_value()) << "mode 0" << std::oct << m;
    EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
  }
  ASSERT_EQ(::chmod(file_of(k).c_str(), 0400), 0);  // read-only for the owner is fine
  EXPECT_TRUE(dc::load(dir(), k).has_value());
  ASSERT_EQ(::chmod(file_of(k).c_str(), 0666), 0);
  dc::store(dir(), k, payload);  // rewritten with the right mode
  EXPECT_EQ(mode_of(file_of(k)), "0600");
  EXPECT_TRUE(dc::load(dir(), k).has_value());
}

TEST_F(DiskCache, EntryOfAnotherUserIsRejected) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  const std::string k = random_key();
  dc::store(dir(), k, random_bytes(70));
  ASSERT_EQ(::chown(file_of(k).c_str(), 65534, 65534), 0);  // nobody
  const auto before = jf::stats().disk_cache_rejects;
  EXPECT_FALSE(dc::load(dir(), k).has_value());
  EXPECT_EQ(jf::stats().disk_cache_rejects, before + 1);
}

// Runs f with stderr captured; returns what it printed.
template <class F>
std::string stderr_of(F&& f) {
  ::testing::internal::CaptureStderr();
  f();
  return ::testing::internal::GetCapturedStderr();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(DiskCache, DirectoryWritableByGroupOrOthersIsRefusedWithOneNote) {
  const std::string k = random_key();
  const std::vector<char> payload = random_bytes(80);
  dc::store(dir(), k, payload);
  ASSERT_TRUE(dc::load(dir(), k).has_value());
  for (mode_t m : {0770, 0707, 0777}) {
    const fs::path sub = dir_ / ("mode" + std::to_string(m));
    fs::create_directory(sub);
    ASSERT_EQ(::chmod(sub.c_str(), 0700), 0);
    dc::store(sub.string(), k, payload);
    ASSERT_EQ(::chmod(sub.c_str(), m), 0);
    const auto before = jf::stats().disk_cache_rejects;
    const std::string note = stderr_of([&] {
      EXPECT_FALSE(dc::load(sub.string(), k).has_value()) << "read from a directory of mode 0" << std::oct << m;
      dc::store(sub.string(), k + "x", payload);
      EXPECT_FALSE(dc::load(sub.string(), k).has_value());
    });
    EXPECT_FALSE(fs::exists(sub / dc::file_name(k + "x"))) << "written into a directory of mode 0" << std::oct << m;
    EXPECT_EQ(count_of(note, sub.string()), 1u) << "one note per directory: " << note;
    EXPECT_NE(note.find("writable by group or others"), std::string::npos) << note;
    EXPECT_EQ(jf::stats().disk_cache_rejects, before) << "a refused directory is not a rejected file";
    ASSERT_EQ(::chmod(sub.c_str(), 0700), 0);  // fixed by the user: used again
    EXPECT_TRUE(dc::load(sub.string(), k).has_value());
  }
}

TEST_F(DiskCache, DirectoryOfAnotherUserIsRefused) {
  std::string other;
  if (::geteuid() == 0) {
    const fs::path sub = dir_ / "nobody";
    fs::create_directory(sub);
    ASSERT_EQ(::chmod(sub.c_str(), 0700), 0);
    dc::store(sub.string(), random_key(), random_bytes(5));  // root can still write there: must not
    ASSERT_EQ(::chown(sub.c_str(), 65534, 65534), 0);
    other = sub.string();
  } else {
    other = "/";  // owned by root, not by this user
  }
  const std::string k = random_key();
  const std::string note = stderr_of([&] {
    dc::store(other, k, random_bytes(10));
    EXPECT_FALSE(dc::load(other, k).has_value());
  });
  EXPECT_FALSE(fs::exists(fs::path(other) / dc::file_name(k)));
  EXPECT_EQ(count_of(note, "jetfuse:"), 1u) << note;
  EXPECT_NE(note.find("owned by"), std::string::npos) << note;
}

TEST(DiskCacheDirectory, EnvironmentPrecedence) {
  // Saved and restored: other tests of this process may read these variables.
  auto save = [](const char* n) -> std::pair<bool, std::string> {
    const char* v = std::getenv(n);
    return {v != nullptr, v ? v : ""};
  };
  auto restore = [](const char* n, const std::pair<bool, std::string>& v) {
    if (v.first)
      ::setenv(n, v.second.c_str(), 1);
    else
      ::unsetenv(n);
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
