// DLPack for jagged arrays: DLPack has no ragged tensor, so a jf::jagged travels as two tensors —
// the offsets (int64, n + 1 entries, Awkward's ListOffsetArray) and the content (1-d) — and a
// jf::jagged_record as the offsets and one tensor per field. This is the layout Awkward's
// ak.to_buffers, cuDF's list columns and PyTorch's nested/jagged tensors (offsets + values) use,
// so each side reassembles it in a line. No copy either way (int32 offsets are the one
// exception: converted to int64 on import, a copy of the offsets only). Not included by jetfuse.hpp.
//
//   auto [off, content] = jf::to_dlpack(x);                       // x: jf::jagged<float>
//   jf::jagged<float> y = jf::jagged_from_dlpack<float>(off_t, content_t);
//
// Ownership as for single tensors (jetfuse/dlpack.hpp): on success every tensor passed in is
// taken (its deleter runs once, after the last jetfuse handle on it goes away); on any throw NONE
// is taken — the offsets are validated (Awkward's list validity rules) before any is accepted.
// Exports return tensors the caller owns, each to be deleted once (or handed to a consumer).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "jetfuse/dlpack.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/record.hpp"

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

// ---- import ---------------------------------------------------------------------------------
// Offsets: 1-d int64 (or int32: converted), on the content's device; contents: 1-d, any strides,
// of dtype T. Errors, with every tensor left to the caller: those of jf::from_dlpack for each
// tensor; dtype_error for offsets of another dtype or a content not of T; value_error for
// tensors that are not 1-d, for offsets Awkward would reject ("stop[i] > len(content)" ...),
// for a record without fields or with a repeated name; backend_mismatch across devices.
template <class T>
jagged<T> jagged_from_dlpack(DLManagedTensor* offsets, DLManagedTensor* content) {
  const dtype want = dtype_v<T>;
  auto [off, c] = detail::lists_from_dlpack(offsets, {content}, &want);
  return jagged<T>(std::move(off), array<T>(c[0]));
}
template <class T>
jagged<T> jagged_from_dlpack(DLManagedTensorVersioned* offsets, DLManagedTensorVersioned* content,
                             dlpack_read_only read_only = dlpack_read_only::reject) {
  const dtype want = dtype_v<T>;
  auto [off, c] = detail::lists_from_dlpack(offsets, {content}, &want, read_only);
  return jagged<T>(std::move(off), array<T>(c[0]));
}
// A record whose fields (any dtypes) share the offsets.
inline jagged_record record_from_dlpack(const dlpack_record& r) { return detail::record_from_dlpack(r); }
inline jagged_record record_from_dlpack(const dlpack_record_versioned& r,
                                        dlpack_read_only read_only = dlpack_read_only::reject) {
  return detail::record_from_dlpack(r, read_only);
}

// ---- export ---------------------------------------------------------------------------------
// The offsets as they are (a sliced jagged exports its offsets view: they need not start at 0)
// and the content; on jf::cuda after waiting for the calling thread's stream, as to_dlpack.
template <class T>
dlpack_jagged to_dlpack(const jagged<T>& x) {
  const auto t = detail::lists_to_dlpack({x.offsets(), x.content()});
  return {t[0], t[1]};
}
template <class T>
dlpack_jagged_versioned to_dlpack_versioned(const jagged<T>& x) {
  const auto t = detail::lists_to_dlpack_versioned({x.offsets(), x.content()});
  return {t[0], t[1]};
}
dlpack_record to_dlpack(const jagged_record& x);
dlpack_record_versioned to_dlpack_versioned(const jagged_record& x);

}  // namespace jf
