// Builds a jf::jagged<T> from offsets that are valid by construction (computed by jetfuse: the
// offsets of a record's fields, of a selection of lists), skipping the validity check that reads
// the offsets back to the host. Only jetfuse's own code uses it.
#pragma once

#include <cstdint>
#include <utility>

#include "jetfuse/array.hpp"

namespace jf {
template <class T>
class jagged;

namespace detail {
struct jagged_access {
  template <class T>
  static jagged<T> make(array<std::int64_t> offsets, array<T> content) {
    return jagged<T>(typename jagged<T>::trusted{}, std::move(offsets), std::move(content));
  }
  // A nested array from outer offsets valid for `content`'s lists (nested.hpp).
  template <class U>
  static jagged<jagged<U>> make_nested(array<std::int64_t> offsets, jagged<U> content);
};
}  // namespace detail
}  // namespace jf
