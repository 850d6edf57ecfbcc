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

#include <utility>

#include "jetfuse/detail/jagged_dlpack_untyped.hpp"
#include "jetfuse/jagged.hpp"
#include "jetfuse/record.hpp"

namespace jf {

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
// A record whose fields (any dtypes) share the offsets: record_from_dlpack
// (detail/jagged_dlpack_untyped.hpp).

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
// A record: to_dlpack / to_dlpack_versioned (detail/jagged_dlpack_untyped.hpp).

}  // namespace jf
