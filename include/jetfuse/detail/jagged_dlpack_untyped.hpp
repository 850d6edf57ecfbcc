// The untyped half of jetfuse/jagged_dlpack.hpp (the layouts' structs and the functions
// src/core/jagged_dlpack.cpp defines), without jf::jagged's definition. Users include
// jetfuse/jagged_dlpack.hpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jetfuse/detail/jagged_record_class.hpp"
#include "jetfuse/dlpack.hpp"

namespace jf {

// M is DLManagedTensor or DLManagedTensorVersioned.
template <class M>
struct dlpack_jagged_t {
  M* offsets = nullptr;  // int64, one more than the number of lists (need not start at 0)
  M* content = nullptr;  // 1-d: list i is content[offsets[i]:offsets[i + 1]]
};
template <class M>
struct dlpack_record_t {
  M* offsets = nullptr;
  std::vector<std::pair<std::string, M*>> fields;  // each 1-d, indexed by the same offsets
};
using dlpack_jagged = dlpack_jagged_t<DLManagedTensor>;
using dlpack_jagged_versioned = dlpack_jagged_t<DLManagedTensorVersioned>;
using dlpack_record = dlpack_record_t<DLManagedTensor>;
using dlpack_record_versioned = dlpack_record_t<DLManagedTensorVersioned>;

namespace detail {
// src/core/jagged_dlpack.cpp. Imports (offsets, contents) after checking them all; `expected`:
// the contents' dtype, or nullptr for any. Returns int64 offsets and the contents.
std::pair<array<std::int64_t>, std::vector<array_base>> lists_from_dlpack(DLManagedTensor* offsets,
                                                                          const std::vector<DLManagedTensor*>& contents,
                                                                          const dtype* expected);
std::pair<array<std::int64_t>, std::vector<array_base>> lists_from_dlpack(
    DLManagedTensorVersioned* offsets, const std::vector<DLManagedTensorVersioned*>& contents, const dtype* expected,
    dlpack_read_only read_only);
jagged_record record_from_dlpack(const dlpack_record& r);
jagged_record record_from_dlpack(const dlpack_record_versioned& r, dlpack_read_only read_only);
// Exports the offsets and each content (all or none: on a throw the ones made are deleted).
std::vector<DLManagedTensor*> lists_to_dlpack(const std::vector<array_base>& arrays);
std::vector<DLManagedTensorVersioned*> lists_to_dlpack_versioned(const std::vector<array_base>& arrays);
}  // namespace detail

// A record whose fields (any dtypes) share the offsets.
inline jagged_record record_from_dlpack(const dlpack_record& r) { return detail::record_from_dlpack(r); }
inline jagged_record record_from_dlpack(const dlpack_record_versioned& r,
                                        dlpack_read_only read_only = dlpack_read_only::reject) {
  return detail::record_from_dlpack(r, read_only);
}
dlpack_record to_dlpack(const jagged_record& x);
dlpack_record_versioned to_dlpack_versioned(const jagged_record& x);

}  // namespace jf
