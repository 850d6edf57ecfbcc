// The seam between jf::sort / argsort / unique (src/core/sorting.cpp: numpy's checks, axes, result
// arrays) and the backends that order elements: src/cpu/sort.cpp (std::stable_sort per row on the
// thread pool) and src/cuda/sort/ (CUB's device sorts; src/no_cuda/sort.cpp without the toolkit).
#pragma once

#include "jetfuse/array.hpp"
#include "jetfuse/detail/sorting_untyped.hpp"

namespace jf::detail::sorting {

// Rows: `in` and `out` have one shape (ndim >= 1, a last extent >= 2, no zero extent) and any
// strides; `out` is a new array that overlaps nothing. Every row (the last axis) of `in` is sorted
// into the same row of `out` (x's dtype, NaN last), or its stable argsort is written there (int64
// positions along the row).
void cpu_sort_rows(const array_base& in, const array_base& out);
void cpu_argsort_rows(const array_base& in, const array_base& out);
void cuda_sort_rows(const array_base& in, const array_base& out);
void cuda_argsort_rows(const array_base& in, const array_base& out);

// The distinct values of `in` (any shape and strides, read in C order; size >= 1) in order, and
// those of the indices (first occurrences, flat), inverse (in's shape) and counts asked for. Zeros
// come back as +0.0 and NaNs as the default quiet NaN; equal_nan: all NaNs are one value.
unique_parts cpu_unique(const array_base& in, bool equal_nan, bool indices, bool inverse, bool counts);
unique_parts cuda_unique(const array_base& in, bool equal_nan, bool indices, bool inverse, bool counts);

// Lists of a jagged array: `offsets` a 1-d int64 view of lists + 1 offsets into `content` (1-d, any
// stride). Each list is sorted stably in Awkward's order — NaN first in either direction, -0.0 and
// +0.0 equal (they keep their order) — into `out`, contiguous with offsets[lists] - offsets[0]
// elements, list i at [offsets[i] - offsets[0], offsets[i + 1] - offsets[0]): the values (x's
// dtype, their bits kept) or, with local_indices, their positions in the list (int64).
void cpu_sort_lists(const array_base& offsets, const array_base& content, const array_base& out, bool ascending,
                    bool local_indices);
void cuda_sort_lists(const array_base& offsets, const array_base& content, const array_base& out, bool ascending,
                     bool local_indices);

}  // namespace jf::detail::sorting
