// The backend counters. Each thread counts in a block of its own: a bump is a plain load and store
// of a relaxed atomic, no locked instruction and no cache line shared between threads (it is on
// every call's path: four bumps a small call). stats() sums the live blocks and what exited threads
// left behind; reset_stats() moves a baseline rather than writing into other threads' blocks.
#include "jetfuse/stats.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <sstream>
#include <vector>

namespace jf {
namespace {

constexpr std::size_t n_counters = static_cast<std::size_t>(detail::counter::count_);
using totals_t = std::array<std::uint64_t, n_counters>;

struct counter_block {
  std::array<std::atomic<std::uint64_t>, n_counters> c{};
};

struct counter_registry {
  std::mutex mutex;
  std::vector<const counter_block*> live;                     // the running threads' blocks
  totals_t retired{};                                         // the counts of threads that have exited
  totals_t baseline{};                                        // the totals at the last reset_stats()
  std::array<std::atomic<std::uint64_t>, n_counters> late{};  // bumps after a thread's block is gone

  totals_t totals_locked() const {
    totals_t t = retired;
    for (const counter_block* b : live)
      for (std::size_t i = 0; i < n_counters; ++i) t[i] += b->c[i].load(std::memory_order_relaxed);
    for (std::size_t i = 0; i < n_counters; ++i) t[i] += late[i].load(std::memory_order_relaxed);
    return t;
  }
};

// Never destroyed: threads may exit, and count, after the statics of main have gone.
counter_registry& registry() {
  static counter_registry* r = new counter_registry;
  return *r;
}

thread_local bool block_gone = false;  // trivially destructible: readable to the thread's very end

struct thread_counters {
  counter_block block;
  thread_counters() {
    counter_registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.live.push_back(&block);
  }
  ~thread_counters() {
    counter_registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (std::size_t i = 0; i < n_counters; ++i) r.retired[i] += block.c[i].load(std::memory_order_relaxed);
    r.live.erase(std::find(r.live.begin(), r.live.end(), &block));
    block_gone = true;
  }
};

thread_local thread_counters counts;

}  // namespace

namespace detail {
void bump(counter c, std::uint64_t n) {
  const auto i = static_cast<std::size_t>(c);
  if (block_gone) [[unlikely]] {  // from another thread_local's destructor on an exiting thread
    registry().late[i].fetch_add(n, std::memory_order_relaxed);
    return;
  }
  std::atomic<std::uint64_t>& x = counts.block.c[i];
  x.store(x.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);  // only this thread writes it
}
}  // namespace detail

stats_t stats() {
  using detail::counter;
  counter_registry& r = registry();
  totals_t t;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    t = r.totals_locked();
    for (std::size_t i = 0; i < n_counters; ++i) t[i] -= r.baseline[i];
  }
  auto get = [&](counter c) { return t[static_cast<std::size_t>(c)]; };
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
  s.indices_remembered = get(counter::indices_remembered);
  return s;
}

void reset_stats() {
  counter_registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.baseline = r.totals_locked();
}

std::string to_string(const stats_t& s) {
  std::ostringstream o;
  o << "launches=" << s.launches << " graph_launches=" << s.graph_launches << " nvrtc_compiles=" << s.nvrtc_compiles
    << " memory_cache_hits=" << s.memory_cache_hits << " disk_cache_hits=" << s.disk_cache_hits
    << " disk_cache_rejects=" << s.disk_cache_rejects << " temporaries=" << s.temporaries
    << " temporary_bytes=" << s.temporary_bytes << " device_allocations=" << s.device_allocations
    << " cpu_evaluations=" << s.cpu_evaluations << " cpu_elements=" << s.cpu_elements
    << " analyses_reused=" << s.analyses_reused << " indices_remembered=" << s.indices_remembered;
  return o.str();
}

}  // namespace jf
