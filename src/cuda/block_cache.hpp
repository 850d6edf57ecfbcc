// Internal: small device blocks a thread freed, kept for its next allocations of the same size.
// A new array per call (`auto y = f(x)` in a loop) then costs no driver call for its memory:
// cuMemAllocFromPoolAsync and cuMemFreeAsync each cost the host about 0.3-0.9 us on the H200
// machine (docs/benchmarks.md: a small call into a new array 0.8-1.9 us over one into an existing
// one). Blocks come back only on the thread, hence the stream, that allocated them, and go out only
// to it: that stream's order puts the new owner's work after the old owner's, as cuMemFreeAsync on
// it would. Sizes are exact (no rounding: compute-sanitizer still sees every array's own bounds).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <unordered_map>
#include <vector>

namespace jf::cuda_rt {

class block_cache {
 public:
  static constexpr std::size_t max_block = std::size_t(1) << 20;   // larger blocks go back to the pool
  static constexpr std::size_t max_bytes = std::size_t(64) << 20;  // held by one thread at most

  // A block of exactly n bytes, or 0.
  CUdeviceptr take(std::size_t n) {
    auto it = free_.find(n);
    if (it == free_.end()) return 0;
    const CUdeviceptr p = it->second.back();
    it->second.pop_back();
    if (it->second.empty()) free_.erase(it);
    bytes_ -= n;
    return p;
  }
  // Keeps p (n bytes) when it is small and there is room; false: the caller frees it.
  bool keep(CUdeviceptr p, std::size_t n) {
    if (n > max_block || bytes_ + n > max_bytes) return false;
    free_[n].push_back(p);
    bytes_ += n;
    return true;
  }
  // Every block, for the caller to free (the cache is then empty).
  std::vector<CUdeviceptr> drain() {
    std::vector<CUdeviceptr> all;
    for (auto& [n, blocks] : free_) all.insert(all.end(), blocks.begin(), blocks.end());
    free_.clear();
    bytes_ = 0;
    return all;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::unordered_map<std::size_t, std::vector<CUdeviceptr>> free_;
  std::size_t bytes_ = 0;
};

}  // namespace jf::cuda_rt
