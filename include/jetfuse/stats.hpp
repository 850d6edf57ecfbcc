// Counters of what the backends did, for users and tests (jf::stats()).
#pragma once

#include <cstdint>
#include <string>

namespace jf {

struct stats_t {
  std::uint64_t launches = 0;            // kernels launched
  std::uint64_t graph_launches = 0;      // of those, through a cached one-node CUDA graph (design.md)
  std::uint64_t nvrtc_compiles = 0;      // kernels compiled by NVRTC
  std::uint64_t memory_cache_hits = 0;   // compiled modules found in this process's cache
  std::uint64_t disk_cache_hits = 0;     // cubins loaded from $JF_CACHE_DIR
  std::uint64_t disk_cache_rejects = 0;  // cache files ignored as corrupt, truncated or foreign
  std::uint64_t temporaries = 0;         // temporary arrays allocated by evaluations
  std::uint64_t temporary_bytes = 0;     // their bytes
  std::uint64_t device_allocations = 0;  // all device buffers allocated (from the pool)
  std::uint64_t cpu_evaluations = 0;     // expressions evaluated by the CPU executor (jf::cpu)
  std::uint64_t cpu_elements = 0;        // elements those evaluations computed
  std::uint64_t analyses_reused = 0;     // element-wise calls on the last call's arrays: analysis skipped
  std::uint64_t indices_remembered = 0;  // scatters that skipped numpy's checking pass: their index array
                                         // was found in bounds before, unchanged since
};

stats_t stats();
void reset_stats();
std::string to_string(const stats_t& s);

namespace detail {
enum class counter : int {
  launches,
  graph_launches,
  nvrtc_compiles,
  memory_cache_hits,
  disk_cache_hits,
  disk_cache_rejects,
  temporaries,
  temporary_bytes,
  device_allocations,
  cpu_evaluations,
  cpu_elements,
  analyses_reused,
  indices_remembered,
  count_  // the number of counters
};
void bump(counter c, std::uint64_t n = 1);  // adds to this thread's counter (src/core/stats.cpp)
}  // namespace detail

}  // namespace jf
