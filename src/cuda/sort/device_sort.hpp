// The entry points of the CUDA sources under src/cuda/sort/ (compiled by nvcc, linked with the
// static CUDA runtime): CUB's device algorithms (cub_*.cu) and the small kernels around them
// (passes.cu). Plain C++ so that src/cuda/sort/sort.cpp, built by the host compiler, calls them.
// Every function is asynchronous on `stream` (a CUstream, which is a cudaStream_t) and returns a
// cudaError_t as an int (0: success); error_text names one. A CUB function called with a null
// `temp` only sets `temp_bytes`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "jetfuse/dtype.hpp"

namespace jf::cuda_sort {

using i64 = std::int64_t;

// Elements of an array in row-major order: element i of the flat order is at
// data + sum_d idx_d(i) * strides[d] (elements, any sign). Axes of extent 1 and axes that continue
// the next one in memory are merged first, so a contiguous array has ndim 1 and stride 1.
struct view {
  int ndim = 1;
  i64 shape[8] = {};
  i64 strides[8] = {};
  void* data = nullptr;
};

const char* error_text(int code);

// ---- CUB (cub_*.cu): keys int32 or int64 (`wide`), values int64 ------------------------------
// DeviceRadixSort::SortKeys of float32, float64, int32 or int64 keys, bits [0, end_bit).
int radix_sort_keys(dtype t, void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, int end_bit,
                    void* stream);
// DeviceRadixSort::SortPairs (stable).
int radix_sort_pairs(bool wide, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                     const i64* values_in, i64* values_out, i64 n, int end_bit, void* stream);
// DeviceSegmentedSort::SortKeys and ::StableSortPairs over segments [offsets[s], offsets[s + 1]).
int segmented_sort_keys(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* out, i64 n, i64 segments,
                        const i64* offsets, void* stream);
int segmented_stable_sort_pairs(bool wide, void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                                const i64* values_in, i64* values_out, i64 n, i64 segments, const i64* offsets,
                                void* stream);
// DeviceSelect::Unique of sorted keys (n < 2^31): the distinct keys and, in *selected, their number.
int select_unique(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* selected,
                  i64 n, void* stream);
// DeviceRunLengthEncode::Encode of sorted keys (n < 2^31): distinct keys, their counts, the number
// of runs.
int run_length_encode(bool wide, void* temp, std::size_t& temp_bytes, const void* in, void* unique_out, i64* counts_out,
                      i64* runs_out, i64 n, void* stream);
// DeviceScan::InclusiveSum in place.
int inclusive_sum(void* temp, std::size_t& temp_bytes, i64* data, i64 n, void* stream);

// ---- one block a row (block_sort_rows.cuh; block_sort_values.cu, block_argsort_rows.cu) --------
// Sorts each of `rows` rows of `row` <= block_sort_max_row elements (in and out: views of rows * row
// elements in row-major order) in one thread block with cub::BlockRadixSort: the values in numpy's
// order (out: t), or the stable argsort of canonical keys (out: int64).
constexpr i64 block_sort_max_row = 4096;
int block_sort_rows(dtype t, const view& in, const view& out, i64 rows, i64 row, void* stream);
int block_argsort_rows(dtype t, const view& in, const view& out, i64 rows, i64 row, void* stream);

// ---- kernels (passes.cu) ---------------------------------------------------------------------
// How elements become signed integer keys (int32: bool, 8- to 32-bit integers but uint32, float32;
// int64: int64, uint32, uint64, float64) whose order is numpy's. order: floats by value with -0.0 before +0.0 and NaN
// last (a NaN's sign bit cleared: decoding gives it back without its sign). canonical: as order,
// but -0.0 is +0.0 and every NaN one NaN, so that ties are numpy's ties (argsort, unique).
enum class key_mode : int { order, canonical };
bool wide_keys(dtype t);  // the int64 keys of int64, uint32, uint64 and float64

// keys[i] = key of element i of `in` (n elements), and when positions is not null
// positions[i] = i % row (the position along its row).
int encode_keys(dtype t, key_mode mode, const view& in, void* keys, i64* positions, i64 row, i64 n, void* stream);
// Element i of `out` (x's dtype) = the element keys[i] stands for.
int decode_keys(dtype t, const void* keys, const view& out, i64 n, void* stream);
// Copies between a view and contiguous memory, elements of `bytes` (1, 2, 4 or 8) bytes.
int gather(int bytes, const view& in, void* out, i64 n, void* stream);
int scatter(int bytes, const void* in, const view& out, i64 n, void* stream);
// offsets[s] = s * row for s in [0, segments].
int segment_offsets(i64* offsets, i64 segments, i64 row, void* stream);
// After CUB sorted floats by their bits (NaNs with the sign bit set first), moves those NaNs to
// the end with the sign cleared, numpy's order: a warp finds their count k into *count; the next
// kernels return at once when k == 0, else rotate `data` left by k through `scratch` (n elements)
// and back. No host synchronisation.
int move_negative_nans_last(dtype t, void* data, void* scratch, i64* count, i64 n, void* stream);

// unique by run-length encoding (the keys canonical): summary[0] = the number of runs, summary[1]
// = the count of the last run when its key is the NaN key (else 0).
int rle_summary(dtype t, const void* unique_keys, const i64* counts, const i64* runs, i64* summary, void* stream);
// values[i] (and counts_out[i] when not null) for i < total: the first `regular` runs decoded,
// then NaNs: one of count nan_count when equal_nan, else nan_count NaNs of count 1.
int rle_finish(dtype t, const void* unique_keys, const i64* counts, i64 regular, i64 total, i64 nan_count,
               bool equal_nan, void* values, i64* counts_out, void* stream);
// unique by a scan: flags[i] = 1 where sorted key i starts a new value (every NaN key when
// !equal_nan), else 0.
int unique_flags(dtype t, const void* keys, i64* flags, i64 n, bool equal_nan, void* stream);
// With runs = the inclusive sum of the flags and perm the sorted flat positions: each value where
// it starts (values, indices = its position, starts = i), inverse[perm[i]] = its value's number.
// Any output may be null.
int unique_scatter(dtype t, const void* keys, const i64* perm, const i64* runs, i64 n, void* values, i64* indices,
                   i64* inverse, i64* starts, void* stream);
// counts[u] = starts[u + 1] - starts[u] (the last: n - starts[u]).
int counts_from_starts(const i64* starts, i64 distinct, i64 n, i64* counts, void* stream);

// ---- per-list sorts of jagged arrays (list_passes.cu) -----------------------------------------
// Canonical keys (encode_keys) re-keyed in place for Awkward's list order: NaN first in either
// direction (a key equal to nan_key, when has_nan, becomes the lowest key), descending as the
// bitwise complement of the others.
int list_keys(bool wide, void* keys, i64 n, bool ascending, bool has_nan, i64 nan_key, void* stream);
// out[i] = offsets[i] - offsets[0] for i in [0, lists] (offsets: a view of lists + 1 int64).
int rebase_offsets(const view& offsets, i64* out, i64 lists, void* stream);
// out[i] = element perm[i] of `in` (elements of `bytes` bytes; out contiguous).
int take_positions(int bytes, const view& in, const i64* perm, void* out, i64 n, void* stream);
// local[i] = perm[i] - offsets[s] where list s (rebased offsets, lists + 1 of them) holds i.
int local_positions(const i64* perm, const i64* offsets, i64 lists, i64* local, i64 n, void* stream);

// ---- per-list sorts of short lists (short_lists.cu) --------------------------------------------
// Lists of at most short_list_max elements (offsets: a view of lists + 1 int64, `first` its first
// value; content: the sorted range of shape[0] elements, element offsets[l] - first onwards is list
// l's) sorted in Awkward's list order, stably, a thread a list: into values (contiguous, t), or
// when values is null their local positions into local (contiguous int64). The general path's
// answer, bit for bit. A longer list is sorted exactly, slowly; a list outside the range is skipped.
constexpr i64 short_list_max = 16;
int sort_short_lists(dtype t, const view& offsets, i64 first, const view& content, i64 lists, bool ascending,
                     void* values, i64* local, void* stream);

}  // namespace jf::cuda_sort
