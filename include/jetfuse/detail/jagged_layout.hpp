// The untyped work of jf::jagged (jagged.hpp), in src/core/jagged.cpp: validation of the layout,
// zero-copy views of it, type strings and Awkward's errors. No YAP here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"

namespace jf {
namespace detail {
// Untyped work (src/core/jagged.cpp).
// Awkward's validity rules for (offsets, content): offsets 1-d int64 with at least one entry,
// offsets[0] >= 0, non-decreasing, last <= len(content); content 1-d; one backend. Reads the
// offsets back to the host. Throws value_error / backend_mismatch with Awkward's words.
void check_jagged(const array_base& offsets, const array_base& content);
// The same rules for the outer offsets of a nested jagged array (jf::jagged<jf::jagged<T>>): its
// content is the inner jagged array, of `inner_lists` lists on `inner_device`.
void check_nested(const array_base& offsets, std::int64_t inner_lists, device inner_device);
// offsets[0] and offsets[n] of valid offsets (remembered; read back once otherwise).
std::pair<std::int64_t, std::int64_t> offsets_range(const array_base& offsets);
// The inner lists a nested array uses: the view inner_offsets[outer[0] : outer[n] + 1].
array_base used_lists(const array_base& outer, const array_base& inner_offsets);
// Offsets rebased to start at 0: the same array when they do, else offsets - offsets[0] (a small
// host copy, remembered as lists of the same lengths).
array_base rebased_offsets(const array_base& offsets);
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
// Awkward's type string "n * var * dtype" ("n * var * var * dtype" with depth 2: nested lists).
std::string jagged_type_string(std::int64_t n, dtype content_dtype, int depth = 1);
// The checks of jf::unflatten(content, counts) before any work: counts 1-d, one backend.
void check_unflatten(const array_base& content, const array_base& counts);
// ValueError of ak.unflatten when the counts do not add up to the content's length.
[[noreturn]] void throw_unflatten_mismatch(std::int64_t total, std::int64_t length);
// value_error for a negative count (Awkward does not check; its offsets would then decrease).
[[noreturn]] void throw_negative_count(std::int64_t lowest);
// axis_error of ak.num for an axis outside an array of this depth (2: jagged, 3: nested).
[[noreturn]] void throw_num_axis(int axis, int depth = 2);
}  // namespace detail

}  // namespace jf
