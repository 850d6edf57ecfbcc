// The on-disk cubin cache. File layout (integers little-endian):
//   "JFKC" | u32 format version | u64 key length | key | u64 payload length | payload | u64 checksum
// where the checksum is hash64 of every byte before it. The full key is stored and compared, so a
// file-name (hash) collision or a stale file is a miss, never a wrong kernel.
#include "cuda/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include "jetfuse/stats.hpp"

#ifndef JF_VERSION_STRING
#define JF_VERSION_STRING "unknown"
#endif

namespace jf::disk_cache {
namespace {

constexpr char magic[4] = {'J', 'F', 'K', 'C'};
constexpr std::size_t max_file_bytes = std::size_t(1) << 30;  // no cubin is that large

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
  out.reserve(4 + 4 + 8 + key.size() + 8 + payload.size() + 8);
  out.insert(out.end(), magic, magic + 4);
  put_u32(out, format_version);
  put_u64(out, key.size());
  out.insert(out.end(), key.begin(), key.end());
  put_u64(out, payload.size());
  out.insert(out.end(), payload.begin(), payload.end());
  put_u64(out, hash64(out.data(), out.size()));
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
  if (!have(8) || payload_len != n - pos - 8) return std::nullopt;  // exact size: no trailing bytes
  const std::size_t checksum_at = pos + static_cast<std::size_t>(payload_len);
  if (get_le(file.data() + checksum_at, 8) != hash64(file.data(), checksum_at)) return std::nullopt;
  return std::vector<char>(file.begin() + static_cast<std::ptrdiff_t>(pos),
                           file.begin() + static_cast<std::ptrdiff_t>(checksum_at));
}

// The whole file, or nullopt if it does not exist; `existed` tells a missing file from a bad one.
std::optional<std::vector<char>> read_file(const std::string& path, bool& existed) {
  existed = false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    existed = errno != ENOENT && errno != ENOTDIR;
    return std::nullopt;
  }
  existed = true;
  std::optional<std::vector<char>> result;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_file_bytes) {
    std::vector<char> data(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < data.size()) {
      const ssize_t r = ::read(fd, data.data() + got, data.size() - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    if (got == data.size()) result = std::move(data);
  }
  ::close(fd);
  return result;
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

std::uint64_t hash64(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = seed;
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
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
    bool existed = false;
    std::optional<std::vector<char>> file = read_file(dir + "/" + file_name(key), existed);
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
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    static std::atomic<std::uint64_t> counter{0};
    const std::string name = file_name(key);
    // Unique per process, thread and call, in the same directory so that rename is atomic.
    const std::string tmp = dir + "/." + name + ".tmp." + std::to_string(::getpid()) + "." +
                            std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." +
                            std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool ok = write_all(fd, encode(key, payload));
    const bool closed = ::close(fd) == 0;
    if (!ok || !closed || ::rename(tmp.c_str(), (dir + "/" + name).c_str()) != 0) ::unlink(tmp.c_str());
  } catch (...) {  // the cache is an optimisation: a failed store changes nothing
  }
}

}  // namespace jf::disk_cache
