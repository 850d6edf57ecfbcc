// The on-disk cubin cache: one self-checking file per kernel, written atomically, read defensively.
// Needs no GPU and no CUDA header (it is built into the CPU-only library as well, for its tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jf::disk_cache {

inline constexpr std::uint32_t format_version = 1;

// 64-bit FNV-1a.
std::uint64_t hash64(const void* data, std::size_t bytes, std::uint64_t seed = 14695981039346656037ull);

// Everything a cubin depends on: source, NVRTC options, NVRTC version, architecture and the
// jetfuse version (so an upgrade never reads an old layout).
std::string full_key(const std::string& source, const std::string& options, int nvrtc_version,
                     const std::string& arch);

// "<16 hex digits of hash64(full_key)>.cubin"
std::string file_name(const std::string& full_key);

// The cache directory from the environment: $JF_CACHE_DIR, else $XDG_CACHE_HOME/jetfuse, else
// $HOME/.cache/jetfuse; "" when JF_DISABLE_DISK_CACHE is set (to anything but "" or "0") or no
// directory can be named.
std::string directory_from_environment();

// The payload stored for full_key in dir, or nullopt: a missing file is a miss; a file that is
// truncated, corrupt or holds another key is a miss too (counted in stats().disk_cache_rejects).
// Never throws for I/O or format problems.
std::optional<std::vector<char>> load(const std::string& dir, const std::string& full_key);

// Stores atomically (temporary file + rename) so that concurrent readers and writers, threads or
// processes, only ever see complete files. Failures are ignored: the cache is an optimisation.
void store(const std::string& dir, const std::string& full_key, const std::vector<char>& payload);

}  // namespace jf::disk_cache
