// jf::jagged_record: Awkward's lists of records, `n * var * {pt: float32, eta: float32, ...}` —
// named fields, each a content array, sharing ONE offsets array. jf::zip builds it from jagged
// arrays whose offsets are the same buffer (checked by identity) or equal by value (read back and
// compared once); ev["pt"] and ev.field<float>("pt") give a field back as a jf::jagged sharing the
// record's offsets and the field's content (no copy).
//
//   auto ev = jf::zip({{"pt", pt}, {"eta", eta}, {"charge", charge}});
//   jf::jagged<float> pt2 = ev["pt"];          // dtype checked at the conversion
//   auto q = ev.field<std::int32_t>("charge");
#pragma once

#include "jetfuse/detail/jagged_record_class.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

template <class T>
jagged<T> jagged_field::as() const {
  if (content.dtype() != dtype_v<T>) detail::throw_field_dtype(name, content.dtype(), dtype_v<T>);
  return detail::jagged_access::make(offsets, array<T>(content));
}

}  // namespace jf
