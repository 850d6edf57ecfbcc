// The on-disk cubin cache. File layout (integers little-endian):
//   "JFKC" | u32 format version | u64 key length | key | u64 payload length | payload | SHA-256
// where the SHA-256 digest covers every byte before it. The full key is stored and compared, so a
// file-name (hash) collision or a stale file is a miss, never a wrong kernel. Entries are opened
// relative to the verified directory's descriptor, so the checked directory is the one used.
#include "cuda/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "core/sha256.hpp"
#include "jetfuse/stats.hpp"

#ifndef JF_VERSION_STRING
#define JF_VERSION_STRING "unknown"
#endif

namespace jf::disk_cache {
namespace {

constexpr char magic[4] = {'J', 'F', 'K', 'C'};
constexpr std::size_t digest_bytes = 32;

void put_u32(std::vector<char>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::vector<char>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint64_t get_le(const char* p, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::vector<char> encode(const std::string& key, const std::vector<char>& payload) {
  std::vector<char> out;
  out.reserve(4 + 4 + 8 + key.size() + 8 + payload.size() + digest_bytes);
  out.insert(out.end(), magic, magic + 4);
  put_u32(out, format_version);
  put_u64(out, key.size());
  out.insert(out.end(), key.begin(), key.end());
  put_u64(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
  const detail::sha256::digest_t d = detail::sha256::of(out.data(), out.size());
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

// The payload when `file` is a complete, intact entry for `key`.
std::optional<std::vector<char>> decode(const std::vector<char>& file, const std::string& key) {
  const std::size_t n = file.size();
  std::size_t pos = 0;
  auto have = [&](std::size_t k) { return k <= n - pos; };
  if (!have(8) || std::memcmp(file.data(), magic, 4) != 0) return std::nullopt;
  if (get_le(file.data() + 4, 4) != format_version) return std::nullopt;
  pos = 8;
  if (!have(8)) return std::nullopt;
  const std::uint64_t key_len = get_le(file.data() + pos, 8);
  pos += 8;
  if (key_len != key.size() || !have(key_len)) return std::nullopt;
  if (std::memcmp(file.data() + pos, key.data(), key.size()) != 0) return std::nullopt;
  pos += key.size();
  if (!have(8)) return std::nullopt;
  const std::uint64_t payload_len = get_le(file.data() + pos, 8);
  pos += 8;
  if (!have(digest_bytes) || payload_len != n - pos - digest_bytes) return std::nullopt;  // exact size
  const std::size_t digest_at = pos + static_cast<std::size_t>(payload_len);
  const detail::sha256::digest_t d = detail::sha256::of(file.data(), digest_at);
  if (std::memcmp(file.data() + digest_at, d.data(), digest_bytes) != 0) return std::nullopt;
  return std::vector<char>(file.begin() + static_cast<std::ptrdiff_t>(pos),
                           file.begin() + static_cast<std::ptrdiff_t>(digest_at));
}

// Closes a descriptor on every path out.
struct fd_closer {
  int fd = -1;
  explicit fd_closer(int f) : fd(f) {}
  fd_closer(const fd_closer&) = delete;
  fd_closer& operator=(const fd_closer&) = delete;
  ~fd_closer() {
    if (fd >= 0) ::close(fd);
  }
};

std::string octal_mode(mode_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0%o", static_cast<unsigned>(m & 07777));
  return buf;
}

// Why the cache directory must not be used, or "" when it may: like ccache and CuPy, only a
// directory of this user that no one else can write to (else another user could plant kernels).
std::string directory_problem(const struct stat& st) {
  if (st.st_uid != ::geteuid())
    return "is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(::geteuid()) +
           ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "is writable by group or others (mode " + octal_mode(st.st_mode) + ")";
  return "";
}

// Whether an entry may be read: a regular file of this user, writable by no one else, of a size
// load() is willing to read.
bool entry_acceptable(const struct stat& st) {
  return S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 &&
         st.st_size >= 0 && static_cast<std::uint64_t>(st.st_size) <= max_entry_bytes;
}

// Once per directory and process: a refused cache costs a compile in every process, so say why.
void note_refused(const std::string& dir, const std::string& why) {
  static std::mutex mutex;
  static auto* noted = new std::set<std::string>;  // never destroyed: usable from static destructors
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!noted->insert(dir).second) return;
  }
  std::fprintf(stderr,
               "jetfuse: not using the kernel cache directory %s: it %s; kernels are compiled again in every "
               "process (make it yours and private, chmod 700, or set JF_CACHE_DIR)\n",
               dir.c_str(), why.c_str());
}

// Creates the missing directories of `dir`, each 0700 as the XDG base directory specification asks;
// existing ones are left as they are. Errors show when the directory is opened.
void create_directories(const std::string& dir) {
  for (std::size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    (void)::mkdir(dir.substr(0, slash).c_str(), 0700);
    if (slash == std::string::npos) break;
  }
}

// A descriptor of the cache directory when it may be used, else -1: quietly for a missing one,
// with a note for a refused one. `create` makes a missing one first.
int open_directory(const std::string& dir, bool create) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && create) {
    create_directories(dir);
    fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) return -1;
  struct stat st {};
  std::string why = ::fstat(fd, &st) == 0 ? directory_problem(st) : "cannot be examined";
  if (why.empty()) return fd;
  ::close(fd);
  note_refused(dir, why);
  return -1;
}

// The whole entry `name` of the directory `dir_fd`, or nullopt; `existed` tells a missing entry
// from a refused or unreadable one. A non-regular file is never opened (lstat first); should the
// name be replaced in between (a concurrent store renames a new file over it), the open neither
// follows a link (O_NOFOLLOW) nor waits for a FIFO's writer (O_NONBLOCK), and what was opened is
// checked again.
std::optional<std::vector<char>> read_entry(int dir_fd, const std::string& name, bool& existed) {
  struct stat before {};
  if (::fstatat(dir_fd, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
    existed = errno != ENOENT;
    return std::nullopt;
  }
  existed = true;
  if (!entry_acceptable(before)) return std::nullopt;
  const int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  fd_closer closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !entry_acceptable(st)) return std::nullopt;
  std::vector<char> data(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < data.size()) {
    const ssize_t r = ::read(fd, data.data() + got, data.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    got += static_cast<std::size_t>(r);
  }
  return data;
}

bool write_all(int fd, const std::vector<char>& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<std::size_t>(w);
  }
  return true;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

namespace {

constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;  // 2^64 / the golden ratio, odd

std::uint64_t load_le64(const unsigned char* p) {  // file names must not depend on the byte order
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

std::uint64_t finalise(std::uint64_t h) {  // MurmurHash3's fmix64: every input bit moves every output bit
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::uint64_t hash64(const void* data, std::size_t bytes, std::uint64_t seed) {
  // Four independent lanes of 8 bytes: a key is a kernel's whole source (40 KB for the quadratic
  // formula), hashed at least twice on a first call; byte-at-a-time FNV-1a took 39 us for it.
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t a = seed, b = seed ^ golden, c = seed + golden, d = seed - golden;
  auto step = [](std::uint64_t x, std::uint64_t w) {
    x = (x ^ w) * golden;
    return x ^ (x >> 29);
  };
  std::size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    a = step(a, load_le64(p + i));
    b = step(b, load_le64(p + i + 8));
    c = step(c, load_le64(p + i + 16));
    d = step(d, load_le64(p + i + 24));
  }
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(bytes) * golden);
  for (std::uint64_t l : {a, b, c, d}) h = (h ^ finalise(l)) * golden;
  for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;  // the last 0-31 bytes
  return finalise(h);
}

std::string full_key(const std::string& source, const std::string& options, int nvrtc_version,
                     const std::string& arch) {
  std::string k;
  k.reserve(source.size() + options.size() + arch.size() + 32);
  k += source;
  k += '\0';
  k += options;
  k += '\0';
  k += std::to_string(nvrtc_version);
  k += '\0';
  k += arch;
  k += '\0';
  k += JF_VERSION_STRING;
  return k;
}

std::string file_name(const std::string& key) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llx.cubin", static_cast<unsigned long long>(hash64(key.data(), key.size())));
  return buf;
}

std::string directory_from_environment() {
  const std::string off = env("JF_DISABLE_DISK_CACHE");
  if (!off.empty() && off != "0") return "";
  if (std::string d = env("JF_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/jetfuse";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/jetfuse";
  return "";
}

std::optional<std::vector<char>> load(const std::string& dir, const std::string& key) {
  if (dir.empty()) return std::nullopt;
  try {
    const int dir_fd = open_directory(dir, false);
    if (dir_fd < 0) return std::nullopt;
    fd_closer closer(dir_fd);
    bool existed = false;
    std::optional<std::vector<char>> file = read_entry(dir_fd, file_name(key), existed);
    std::optional<std::vector<char>> payload;
    if (file) payload = decode(*file, key);
    if (!payload && existed) detail::bump(detail::counter::disk_cache_rejects);
    return payload;
  } catch (...) {  // e.g. bad_alloc: a cache miss, never an error
    return std::nullopt;
  }
}

void store(const std::string& dir, const std::string& key, const std::vector<char>& payload) {
  if (dir.empty()) return;
  try {
    if (payload.size() > max_entry_bytes || key.size() > max_entry_bytes - payload.size() ||
        4 + 4 + 8 + 8 + digest_bytes > max_entry_bytes - payload.size() - key.size())
      return;  // load() would refuse it
    const std::vector<char> entry = encode(key, payload);
    const int dir_fd = open_directory(dir, true);
    if (dir_fd < 0) return;
    fd_closer dir_closer(dir_fd);
    static std::atomic<std::uint64_t> counter{0};
    const std::string name = file_name(key);
    // Unique per process, thread and call, in the same directory so that rename is atomic.
    const std::string tmp = "." + name + ".tmp." + std::to_string(::getpid()) + "." +
                            std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." +
                            std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
    const int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const bool ok = ::fchmod(fd, 0600) == 0 && write_all(fd, entry);  // 0600 whatever the umask
    const bool closed = ::close(fd) == 0;
    if (!ok || !closed || ::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0)
      ::unlinkat(dir_fd, tmp.c_str(), 0);
  } catch (...) {  // the cache is an optimisation: a failed store changes nothing
  }
}

}  // namespace jf::disk_cache
