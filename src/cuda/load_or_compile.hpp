// Where get_kernel's cubin comes from: the disk cache when its entry loads and holds the kernel,
// else NVRTC (then loaded and stored). The driver and NVRTC steps are passed in, so this order and
// the handling of a bad entry are tested without a GPU (tests/test_load_or_compile.cpp).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "jetfuse/stats.hpp"

namespace jf::cuda_rt {

enum class cubin_origin { disk_cache, compiled };

struct cubin_steps {
  std::function<std::optional<std::vector<char>>()> read_cache;  // disk_cache::load
  std::function<std::vector<char>()> compile;                    // NVRTC; throws jf::compile_error
  // Loads the cubin as a module and looks the kernel up in it. On failure: with `must_succeed`
  // throws (jf::cuda_error naming the step), else returns false; either way leaves nothing loaded.
  std::function<bool(const std::vector<char>& cubin, bool must_succeed)> load_kernel;
  std::function<void(const std::vector<char>& cubin)> write_cache;  // disk_cache::store
};

// A cached cubin that the driver rejects or that lacks the kernel (an entry with a valid layout
// from another build, tool or hand) is a miss, counted in stats().disk_cache_rejects: compiled again
// and rewritten, so it costs one compile, not an error on every run. A freshly compiled cubin
// that fails is an error and is not stored.
inline cubin_origin load_or_compile(const cubin_steps& s) {
  if (std::optional<std::vector<char>> cached = s.read_cache()) {
    if (s.load_kernel(*cached, false)) return cubin_origin::disk_cache;
    detail::bump(detail::counter::disk_cache_rejects);
  }
  const std::vector<char> cubin = s.compile();
  s.load_kernel(cubin, true);
  s.write_cache(cubin);
  return cubin_origin::compiled;
}

}  // namespace jf::cuda_rt
