// The untyped work of jf::jagged (jagged.hpp), in src/core/jagged.cpp: validation of the layout,
// zero-copy views of it, type strings and Awkward's errors. No YAP here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf {
namespace detail {
// Untyped work (src/core/jagged.cpp).
// Awkward's validity rules for (offsets, content): offsets 1-d int64 with at least one entry,
// offsets[0] >= 0, non-decreasing, last <= len(content); content 1-d; one backend. Reads the
// offsets back to the host. Throws value_error / backend_mismatch with Awkward's words.
void check_jagged(const array_base& offsets, const array_base& content);
// Awkward's "cannot broadcast nested list" (jf::value_error) unless the two offsets describe lists
// of the same lengths (the same view, or compared once and remembered: src/core/offsets_registry.cpp).
void check_same_lists(const array_base& a, const array_base& b);
// The offsets of lists of the given sizes (0, then the running sums), on dev.
array_base offsets_of_sizes(const std::vector<std::int64_t>& sizes, device dev);
// The offsets (int64 or int32) as a host vector of int64, and one of them.
std::vector<std::int64_t> host_offsets(const array_base& offsets);
std::int64_t read_offset(const array_base& offsets, std::int64_t i);
// Remembers that `wide` (int64) holds the values of `narrow` (int32 offsets): bounds, lengths.
void remember_widened_offsets(const array_base& wide, const array_base& narrow);
// Lists [r.start, r.stop) of a jagged array with these offsets, Python's clipping of the bounds:
// a view of offsets[start:stop + 1] (step 1 only).
array_base slice_offsets(const array_base& offsets, const range& r);
// content[offsets[0]:offsets[n]] as a view (reads those two offsets).
array_base flatten_content(const array_base& offsets, const array_base& content);
// Awkward's type string "n * var * dtype".
std::string jagged_type_string(std::int64_t n, dtype content_dtype);
// The checks of jf::unflatten(content, counts) before any work: counts 1-d, one backend.
void check_unflatten(const array_base& content, const array_base& counts);
// ValueError of ak.unflatten when the counts do not add up to the content's length.
[[noreturn]] void throw_unflatten_mismatch(std::int64_t total, std::int64_t length);
// value_error for a negative count (Awkward does not check; its offsets would then decrease).
[[noreturn]] void throw_negative_count(std::int64_t lowest);
// axis_error of ak.num for an axis outside a depth-2 array.
[[noreturn]] void throw_num_axis(int axis);
}  // namespace detail

}  // namespace jf
