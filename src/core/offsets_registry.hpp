// What jetfuse remembers about the offsets of jagged arrays, so that an evaluation never compares
// offsets on the device nor reads them back more than once: each offsets view's first and last
// value (recorded when a jf::jagged is validated or sliced) and its longest list where the host saw
// it (validation, sizes; a slice keeps its parent's as a bound), and which pairs of offsets views have
// the same list lengths (compared by value once). Offsets are treated as immutable, as Awkward's
// are: writing into an offsets array after building a jf::jagged on it is not supported.
#pragma once

#include <cstdint>
#include <utility>

#include "jetfuse/array.hpp"

namespace jf::detail {

// offsets[0] and offsets[n] (read back once, then remembered while the buffer lives).
std::pair<std::int64_t, std::int64_t> offsets_bounds(const array_base& offsets);
// The bounds and the longest list (offsets_longest) in one lookup: an evaluation's path.
struct offsets_facts {
  std::int64_t first = 0, last = 0, longest = -1;
};
offsets_facts offsets_facts_of(const array_base& offsets);
// The length of the longest list where it is known without reading the offsets (recorded where
// they were validated or built on the host), else -1. The list kernels leave out the paths for
// long lists when it is short (docs/design.md, "List kernels").
std::int64_t offsets_longest(const array_base& offsets);
// A bound of the longest list (a slice's: its parent's), without its first and last offsets.
void remember_offsets_longest(const array_base& offsets, std::int64_t longest);
void remember_offsets_bounds(const array_base& offsets, std::int64_t first, std::int64_t last, std::int64_t longest = -1);
// Whether two offsets views describe lists of the same lengths (offsets equal up to a constant
// shift): the same view, or compared on the host once and remembered while both buffers live.
bool same_list_lengths(const array_base& a, const array_base& b);
void remember_same_list_lengths(const array_base& a, const array_base& b);

}  // namespace jf::detail
