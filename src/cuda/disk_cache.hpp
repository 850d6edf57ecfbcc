// The on-disk cubin cache: one self-checking file per kernel, written atomically, read defensively.
// Needs no GPU and no CUDA header (it is built into the CPU-only library as well, for its tests).
//
// Trust: the cache directory must be owned by the effective user and not writable by group or
// others (else it is refused: never read or written, one note on stderr per directory and process);
// an entry must be a regular file (never a link, FIFO or device: opened O_NOFOLLOW | O_NONBLOCK),
// owned by the user, not writable by group or others, at most max_entry_bytes long, and end with
// the SHA-256 of everything before it (the key and payload included). The permissions keep other
// users out; the digest catches corruption and entries written for another key or by another
// layout. An entry forged by the same user is out of scope: that user can already run any code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jf::disk_cache {

// 2: the trailer is a SHA-256 digest (1 had a 64-bit FNV-1a checksum, which anyone can recompute
// by mistake or on purpose for a changed payload without it looking any different).
inline constexpr std::uint32_t format_version = 2;

// The largest entry read or written. load() reads a whole entry into memory, so the bound keeps a
// stray file from costing memory; a generated kernel's cubin is 10-100 KB and its key (the source)
// a few KB, so 64 MiB leaves room for expressions hundreds of times larger than any seen.
inline constexpr std::size_t max_entry_bytes = std::size_t(64) << 20;

// A fast 64-bit hash (not cryptographic), for hash tables and file names: never trusted, the full
// key is compared. Not FNV-1a since 2026-11-30 (its byte-at-a-time chain took 39 us for a 40 KB
// key); entries named by the old hash are simply never found again.
std::uint64_t hash64(const void* data, std::size_t bytes, std::uint64_t seed = 14695981039346656037ull);

// Everything a cubin depends on: source, NVRTC options, NVRTC version, architecture and the
// jetfuse version (so an upgrade never reads an old layout).
std::string full_key(const std::string& source, const std::string& options, int nvrtc_version, const std::string& arch);

// "<16 hex digits of hash64(full_key)>.cubin"
std::string file_name(const std::string& full_key);

// The cache directory from the environment: $JF_CACHE_DIR, else $XDG_CACHE_HOME/jetfuse, else
// $HOME/.cache/jetfuse; "" when JF_DISABLE_DISK_CACHE is set (to anything but "" or "0") or no
// directory can be named.
std::string directory_from_environment();

// The payload stored for full_key in dir, or nullopt: a missing file or directory is a miss; an
// entry that is truncated, corrupt, holds another key, is not a regular file or fails the
// ownership and mode checks is a miss too (counted in stats().disk_cache_rejects). A refused
// directory is a miss (noted once on stderr). Never blocks on a FIFO; never throws.
std::optional<std::vector<char>> load(const std::string& dir, const std::string& full_key);

// Stores atomically (temporary file + rename in the same directory) so that concurrent readers and
// writers, threads or processes, only ever see complete files. Missing directories are created
// 0700, entries are 0600. Failures are ignored: the cache is an optimisation.
void store(const std::string& dir, const std::string& full_key, const std::vector<char>& payload);

}  // namespace jf::disk_cache
