// The per-expression-type cache of compiled variants (internal): one kernel_slot per expression
// type, its variants keyed by everything that changes the generated code or the lowered IR.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/ir/passes.hpp"

namespace jf::detail {

// A built variant: on jf::cuda the launch plan, the source and loaded kernel of every step; on
// jf::cpu the IR as lowered (the CPU executor runs it before any pass).
struct variant {
  std::vector<std::int32_t> key;
  ir::plan plan;
  std::vector<ir::kernel_source> sources;
  std::vector<const cuda_rt::kernel*> kernels;
  ir::graph lowered;
};

struct kernel_slot {
  std::mutex mutex;
  std::vector<std::unique_ptr<variant>> variants;  // stable addresses
};

// The variant of `key` in `slot`, built by `build` (outside the lock) on a miss; when two threads
// miss at once, the first to finish wins.
template <class Build> const variant& find_or_build_variant(kernel_slot& slot, const std::vector<std::int32_t>& key, Build&& build) {
  {
    std::lock_guard<std::mutex> lock(slot.mutex);
    for (const auto& v : slot.variants)
      if (v->key == key) return *v;
  }
  auto v = std::make_unique<variant>();
  v->key = key;
  build(*v);
  std::lock_guard<std::mutex> lock(slot.mutex);
  for (const auto& existing : slot.variants)
    if (existing->key == key) return *existing;
  slot.variants.push_back(std::move(v));
  return *slot.variants.back();
}

}  // namespace jf::detail
