// The backend counters: relaxed atomics, since they are statistics, never synchronisation.
#include "jetfuse/stats.hpp"

#include <array>
#include <atomic>
#include <sstream>

namespace jf {
namespace {

constexpr std::size_t n_counters = static_cast<std::size_t>(detail::counter::count_);

std::array<std::atomic<std::uint64_t>, n_counters>& counters() {
  static std::array<std::atomic<std::uint64_t>, n_counters> c{};
  return c;
}

std::uint64_t get(detail::counter c) {
  return counters()[static_cast<std::size_t>(c)].load(std::memory_order_relaxed);
}

}  // namespace

namespace detail {
void bump(counter c, std::uint64_t n) {
  counters()[static_cast<std::size_t>(c)].fetch_add(n, std::memory_order_relaxed);
}
}  // namespace detail

stats_t stats() {
  using detail::counter;
  stats_t s;
  s.launches = get(counter::launches);
  s.graph_launches = get(counter::graph_launches);
  s.nvrtc_compiles = get(counter::nvrtc_compiles);
  s.memory_cache_hits = get(counter::memory_cache_hits);
  s.disk_cache_hits = get(counter::disk_cache_hits);
  s.disk_cache_rejects = get(counter::disk_cache_rejects);
  s.temporaries = get(counter::temporaries);
  s.temporary_bytes = get(counter::temporary_bytes);
  s.device_allocations = get(counter::device_allocations);
  s.cpu_evaluations = get(counter::cpu_evaluations);
  s.cpu_elements = get(counter::cpu_elements);
  s.analyses_reused = get(counter::analyses_reused);
  return s;
}

void reset_stats() {
  for (auto& c : counters()) c.store(0, std::memory_order_relaxed);
}

std::string to_string(const stats_t& s) {
  std::ostringstream o;
  o << "launches=" << s.launches << " graph_launches=" << s.graph_launches << " nvrtc_compiles=" << s.nvrtc_compiles
    << " memory_cache_hits=" << s.memory_cache_hits << " disk_cache_hits=" << s.disk_cache_hits
    << " disk_cache_rejects=" << s.disk_cache_rejects << " temporaries=" << s.temporaries
    << " temporary_bytes=" << s.temporary_bytes << " device_allocations=" << s.device_allocations
    << " cpu_evaluations=" << s.cpu_evaluations << " cpu_elements=" << s.cpu_elements
    << " analyses_reused=" << s.analyses_reused;
  return o.str();
}

}  // namespace jf
