// jf::cuda's sort, argsort and unique (core/sort_backends.hpp) through CUB's device algorithms
// (device_sort.hpp; nvcc-compiled, static CUDA runtime). Everything runs on the calling thread's
// stream; temporaries (CUB's temp storage included) come from the stream-ordered pool and are
// freed in stream order, so nothing waits for the GPU except unique, which reads its number of
// distinct values back once to size its results.
//
// * 1-d (or flattened) sort of int32/int64/float32/float64: DeviceRadixSort::SortKeys on the
//   elements themselves (read in place when contiguous), then for floats the negative NaNs, which
//   CUB's order by bits puts first, are moved last on the device.
// * rows of at most 4096 (more than 128 when there are several rows): one thread block a row
//   sorts it in registers and shared memory (block_sort_rows.cuh), one read and one write.
// * n-d sort along an axis, bool sort, argsort, unique: a pass writes order-preserving int32/int64
//   keys (and for argsort the positions), then DeviceRadixSort (one row) or DeviceSegmentedSort
//   (one segment per row), then a pass decodes the keys (or copies the positions) into the result,
//   whatever its strides.
// * unique of the values alone: sorted keys, then DeviceSelect::Unique (unique_values).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/offsets_registry.hpp"
#include "core/sort_backends.hpp"
#include "cuda/context.hpp"
#include "cuda/runtime.hpp"
#include "cuda/sort/device_sort.hpp"
#include "jetfuse/buffer.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::sorting {

namespace {

using i64 = std::int64_t;
using cuda_sort::key_mode;
using cuda_sort::view;

void check(int code, const char* what) {
  if (code != 0) throw cuda_error(std::string("jetfuse: ") + what + " failed: " + cuda_sort::error_text(code));
}

// Device memory from the stream-ordered pool for the length of one call (freed in stream order).
class device_temp {
 public:
  explicit device_temp(std::size_t bytes) : p_(bytes ? cuda_rt::allocate(bytes) : nullptr) {}
  ~device_temp() { cuda_rt::deallocate(p_); }
  device_temp(const device_temp&) = delete;
  device_temp& operator=(const device_temp&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(p_);
  }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  void* p_;
};

// A CUB device algorithm's two calls: `call(nullptr, bytes)` sizes its temporary storage, then
// `call(storage, bytes)` runs it (the storage freed in stream order after it).
template <class Call>
void with_cub_temp(const char* what, Call call) {
  std::size_t bytes = 0;
  check(call(nullptr, bytes), what);
  const device_temp temp(bytes);
  check(call(temp.get(), bytes), what);
}

std::size_t bytes_of(i64 n, std::size_t each) { return static_cast<std::size_t>(n) * each; }

// The view of an array's elements in row-major order, axes merged where memory allows.
view view_of(const array_base& a) {
  view v;
  v.data = detail::address_of(a);
  i64 shape[max_ndim], strides[max_ndim];
  int k = 0;  // axes from the innermost out
  for (int d = a.ndim() - 1; d >= 0; --d) {
    const i64 e = a.shape()[d], s = a.strides()[d];
    if (e == 1) continue;
    if (k > 0 && s == strides[k - 1] * shape[k - 1]) {
      shape[k - 1] *= e;
      continue;
    }
    shape[k] = e;
    strides[k++] = s;
  }
  if (k == 0) {
    shape[k] = 1;
    strides[k++] = 1;
  }
  v.ndim = k;
  for (int d = 0; d < k; ++d) {
    v.shape[d] = shape[k - 1 - d];
    v.strides[d] = strides[k - 1 - d];
  }
  return v;
}

bool contiguous(const view& v) { return v.ndim == 1 && v.strides[0] == 1; }

dtype key_dtype(dtype t) { return cuda_sort::wide_keys(t) ? dtype::int64 : dtype::int32; }
std::size_t key_bytes(dtype t) { return cuda_sort::wide_keys(t) ? 8 : 4; }
// Keys of bool are 0 and 1: one bit to sort.
int key_end_bit(dtype t) { return t == dtype::bool_ ? 1 : static_cast<int>(8 * key_bytes(t)); }

// One row of float32/float64/int32/int64: CUB sorts the elements themselves.
void sort_elements(dtype t, const view& in, const view& out, i64 n, void* stream) {
  const int each = size_of(t);
  const device_temp copy(contiguous(in) ? 0 : bytes_of(n, each));
  if (copy) check(cuda_sort::gather(each, in, copy.get(), n, stream), "gathering the elements to sort");
  const void* src = copy ? copy.get() : in.data;
  const device_temp result(contiguous(out) ? 0 : bytes_of(n, each));
  void* dst = result ? result.get() : out.data;

  std::size_t temp_bytes = 0;
  check(cuda_sort::radix_sort_keys(t, nullptr, temp_bytes, src, dst, n, 8 * each, stream),
        "cub::DeviceRadixSort::SortKeys");
  // After the sort, CUB's temp storage is the NaN fix-up's scratch (n elements).
  const bool floating = is_floating(t);
  const device_temp temp(std::max(temp_bytes, floating ? bytes_of(n, each) : 0));
  check(cuda_sort::radix_sort_keys(t, temp.get(), temp_bytes, src, dst, n, 8 * each, stream),
        "cub::DeviceRadixSort::SortKeys");
  if (floating) {
    const device_temp count(sizeof(i64));
    check(cuda_sort::move_negative_nans_last(t, dst, temp.get(), count.get<i64>(), n, stream),
          "moving NaNs after the sorted values");
  }
  if (result) check(cuda_sort::scatter(each, dst, out, n, stream), "writing the sorted elements");
}

// Rows that one thread block sorts in registers and shared memory: every row up to
// block_sort_max_row, but rows of at most 128 when there are many (DeviceSegmentedSort sorts those
// with a warp each, where a block would hold mostly padding).
bool block_sorted(i64 rows, i64 row) { return row <= cuda_sort::block_sort_max_row && (rows == 1 || row > 128); }

// offsets[s] = s * row for the rows' segments.
struct segments {
  device_temp offsets;
  segments(i64 rows, i64 row, void* stream) : offsets(bytes_of(rows + 1, sizeof(i64))) {
    check(cuda_sort::segment_offsets(offsets.get<i64>(), rows, row, stream), "writing segment offsets");
  }
  const i64* get() const { return offsets.get<i64>(); }
};

// unique's distinct values alone (numpy's default) when no NaNs are to be counted apart: sorted
// keys, then DeviceSelect::Unique, one read-back for their number. int32 and int64 are their own
// keys: sorted straight from a contiguous input, the distinct keys selected into the result's own
// memory, which it keeps when they fill at least half of it (as PyTorch's unique does), else they
// are copied into a result of their size.
unique_parts unique_values(dtype t, const view& vin, i64 n, void* stream) {
  const bool identity = t == dtype::int32 || t == dtype::int64, wide = cuda_sort::wide_keys(t);
  const std::size_t kb = key_bytes(t);
  const device_temp keys(identity && contiguous(vin) ? 0 : bytes_of(n, kb)), sorted(bytes_of(n, kb));
  if (keys)
    check(cuda_sort::encode_keys(t, key_mode::canonical, vin, keys.get(), nullptr, n, n, stream), "encoding keys");
  const void* src = keys ? keys.get() : vin.data;
  with_cub_temp("cub::DeviceRadixSort::SortKeys", [&](void* temp, std::size_t& bytes) {
    return cuda_sort::radix_sort_keys(key_dtype(t), temp, bytes, src, sorted.get(), n, key_end_bit(t), stream);
  });
  const detail::buffer_ptr own = identity ? detail::allocate(cuda, bytes_of(n, kb)) : nullptr;
  const device_temp distinct_keys(identity ? 0 : bytes_of(n, kb)), selected(sizeof(i64));
  void* distinct = identity ? own->ptr : distinct_keys.get();
  with_cub_temp("cub::DeviceSelect::Unique", [&](void* temp, std::size_t& bytes) {
    return cuda_sort::select_unique(wide, temp, bytes, sorted.get(), distinct, selected.get<i64>(), n, stream);
  });
  i64 count = 0;
  cuda_rt::copy_dtoh(&count, selected.get(), sizeof count);  // the one synchronisation: the result's size
  unique_parts p;
  if (identity && 2 * count >= n) {
    p.values = array_base(own, t, shape_t{count}, strides_t{1}, 0);
    return p;
  }
  p.values = make_array(cuda, t, shape_t{count});
  if (identity)
    cuda_rt::copy_dtod(detail::address_of(p.values), distinct, bytes_of(count, kb));
  else
    check(cuda_sort::decode_keys(t, distinct, view_of(p.values), count, stream), "decoding the distinct values");
  return p;
}

}  // namespace

void cuda_sort_rows(const array_base& in, const array_base& out) {
  cuda_rt::context::enter();
  void* stream = cuda_rt::current_stream();
  const dtype t = in.dtype();
  const i64 row = in.shape()[in.ndim() - 1], total = in.size(), rows = total / row;
  const view vin = view_of(in), vout = view_of(out);
  if (block_sorted(rows, row))
    return check(cuda_sort::block_sort_rows(t, vin, vout, rows, row, stream), "sorting rows in thread blocks");
  // CUB sorts one row of float32, float64, int32 or int64 itself; the other dtypes through keys.
  if (rows == 1 && (t == dtype::float32 || t == dtype::float64 || t == dtype::int32 || t == dtype::int64))
    return sort_elements(t, vin, vout, total, stream);

  const std::size_t kb = key_bytes(t);
  const device_temp keys(bytes_of(total, kb)), sorted(bytes_of(total, kb));
  check(cuda_sort::encode_keys(t, key_mode::order, vin, keys.get(), nullptr, row, total, stream), "encoding keys");
  if (rows == 1) {
    with_cub_temp("cub::DeviceRadixSort::SortKeys", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::radix_sort_keys(key_dtype(t), temp, bytes, keys.get(), sorted.get(), total, key_end_bit(t),
                                        stream);
    });
  } else {
    const segments seg(rows, row, stream);
    with_cub_temp("cub::DeviceSegmentedSort::SortKeys", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::segmented_sort_keys(cuda_sort::wide_keys(t), temp, bytes, keys.get(), sorted.get(), total, rows,
                                            seg.get(), stream);
    });
  }
  check(cuda_sort::decode_keys(t, sorted.get(), vout, total, stream), "decoding sorted keys");
}

void cuda_argsort_rows(const array_base& in, const array_base& out) {
  cuda_rt::context::enter();
  void* stream = cuda_rt::current_stream();
  const dtype t = in.dtype();
  const i64 row = in.shape()[in.ndim() - 1], total = in.size(), rows = total / row;
  const view vin = view_of(in), vout = view_of(out);
  if (block_sorted(rows, row))
    return check(cuda_sort::block_argsort_rows(t, vin, vout, rows, row, stream), "argsorting rows in thread blocks");
  const bool wide = cuda_sort::wide_keys(t);
  const std::size_t kb = key_bytes(t);
  const device_temp keys(bytes_of(total, kb)), sorted(bytes_of(total, kb)), positions(bytes_of(total, sizeof(i64)));
  const device_temp result(contiguous(vout) ? 0 : bytes_of(total, sizeof(i64)));
  i64* dst = result ? result.get<i64>() : static_cast<i64*>(vout.data);
  check(cuda_sort::encode_keys(t, key_mode::canonical, vin, keys.get(), positions.get<i64>(), row, total, stream),
        "encoding keys");
  if (rows == 1) {
    with_cub_temp("cub::DeviceRadixSort::SortPairs", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::radix_sort_pairs(wide, temp, bytes, keys.get(), sorted.get(), positions.get<i64>(), dst, total,
                                         key_end_bit(t), stream);
    });
  } else {
    const segments seg(rows, row, stream);
    with_cub_temp("cub::DeviceSegmentedSort::StableSortPairs", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::segmented_stable_sort_pairs(wide, temp, bytes, keys.get(), sorted.get(), positions.get<i64>(),
                                                    dst, total, rows, seg.get(), stream);
    });
  }
  if (result) check(cuda_sort::scatter(sizeof(i64), dst, vout, total, stream), "writing the sorted positions");
}

void cuda_sort_lists(const array_base& offsets, const array_base& content, const array_base& out, bool ascending,
                     bool local_indices) {
  cuda_rt::context::enter();
  void* stream = cuda_rt::current_stream();
  const dtype t = content.dtype();
  const i64 lists = offsets.size() - 1, total = out.size();
  if (total == 0) return;
  // The sorted range of the content, content[offsets[0]:offsets[lists]].
  const offsets_facts facts = offsets_facts_of(offsets);  // remembered when the jagged array was made
  view range = view_of(content);
  range.data = static_cast<char*>(range.data) + facts.first * content.strides()[0] * size_of(t);
  range.shape[0] = total;
  if (facts.longest >= 0 && facts.longest <= cuda_sort::short_list_max) {
    void* values = local_indices ? nullptr : detail::address_of(out);
    i64* local = local_indices ? static_cast<i64*>(detail::address_of(out)) : nullptr;
    return check(
        cuda_sort::sort_short_lists(t, view_of(offsets), facts.first, range, lists, ascending, values, local, stream),
        "sorting short lists");
  }
  if (total > INT_MAX || lists > INT_MAX)
    throw value_error("jetfuse: a per-list sort on jf::cuda of more than 2^31 - 1 elements or lists (CUB's segmented "
                      "sort counts in int)");
  // Offsets into the sorted range.
  const device_temp rebased(bytes_of(lists + 1, sizeof(i64)));
  check(cuda_sort::rebase_offsets(view_of(offsets), rebased.get<i64>(), lists, stream), "rebasing the offsets");

  const bool wide = cuda_sort::wide_keys(t);
  const std::size_t kb = key_bytes(t);
  const device_temp keys(bytes_of(total, kb)), sorted(bytes_of(total, kb)), positions(bytes_of(total, sizeof(i64))),
      perm(bytes_of(total, sizeof(i64)));
  check(cuda_sort::encode_keys(t, key_mode::canonical, range, keys.get(), positions.get<i64>(), total, total, stream),
        "encoding keys");
  const i64 nan_key = t == dtype::float32 ? 0x7FC00000LL : 0x7FF8000000000000LL;
  check(cuda_sort::list_keys(wide, keys.get(), total, ascending, is_floating(t), nan_key, stream),
        "ordering keys as Awkward does");
  with_cub_temp("cub::DeviceSegmentedSort::StableSortPairs", [&](void* temp, std::size_t& bytes) {
    return cuda_sort::segmented_stable_sort_pairs(wide, temp, bytes, keys.get(), sorted.get(), positions.get<i64>(),
                                                  perm.get<i64>(), total, lists, rebased.get<i64>(), stream);
  });
  if (local_indices)
    check(cuda_sort::local_positions(perm.get<i64>(), rebased.get<i64>(), lists,
                                     static_cast<i64*>(detail::address_of(out)), total, stream),
          "writing local indices");
  else
    check(cuda_sort::take_positions(size_of(t), range, perm.get<i64>(), detail::address_of(out), total, stream),
          "writing the sorted values");
}

unique_parts cuda_unique(const array_base& in, bool equal_nan, bool want_indices, bool want_inverse, bool want_counts) {
  cuda_rt::context::enter();
  void* stream = cuda_rt::current_stream();
  const dtype t = in.dtype();
  const i64 n = in.size();
  const view vin = view_of(in);
  if (!want_indices && !want_inverse && !want_counts && n <= INT_MAX && (equal_nan || !is_floating(t)))
    return unique_values(t, vin, n, stream);
  const bool wide = cuda_sort::wide_keys(t);
  const std::size_t kb = key_bytes(t);
  const device_temp keys(bytes_of(n, kb)), sorted(bytes_of(n, kb));
  unique_parts p;

  if (!want_indices && !want_inverse && n <= INT_MAX) {
    // Sorted keys, run-length encoded: the distinct keys and their counts.
    check(cuda_sort::encode_keys(t, key_mode::canonical, vin, keys.get(), nullptr, n, n, stream), "encoding keys");
    with_cub_temp("cub::DeviceRadixSort::SortKeys", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::radix_sort_keys(key_dtype(t), temp, bytes, keys.get(), sorted.get(), n, key_end_bit(t), stream);
    });
    const device_temp distinct(bytes_of(n, kb)), counts(bytes_of(n, sizeof(i64))), summary(4 * sizeof(i64));
    i64* runs = summary.get<i64>() + 2;
    with_cub_temp("cub::DeviceRunLengthEncode::Encode", [&](void* temp, std::size_t& bytes) {
      return cuda_sort::run_length_encode(wide, temp, bytes, sorted.get(), distinct.get(), counts.get<i64>(), runs, n,
                                          stream);
    });
    check(cuda_sort::rle_summary(t, distinct.get(), counts.get<i64>(), runs, summary.get<i64>(), stream),
          "summarising the runs");
    i64 s[2];
    cuda_rt::copy_dtoh(s, summary.get(), sizeof s);  // the one synchronisation: the results' size
    const i64 nan_count = s[1], regular = s[0] - (nan_count > 0 ? 1 : 0);
    const i64 total = equal_nan || nan_count == 0 ? s[0] : regular + nan_count;
    p.values = make_array(cuda, t, shape_t{total});
    if (want_counts) p.counts = make_array(cuda, dtype::int64, shape_t{total});
    check(cuda_sort::rle_finish(t, distinct.get(), counts.get<i64>(), regular, total, nan_count, equal_nan,
                                detail::address_of(p.values),
                                want_counts ? static_cast<i64*>(detail::address_of(p.counts)) : nullptr, stream),
          "writing the distinct values");
    return p;
  }

  // Sorted (key, position) pairs; a flag where a value starts, scanned into each element's value
  // number; the values, first positions, inverse and counts scattered from there.
  const device_temp positions(bytes_of(n, sizeof(i64))), perm(bytes_of(n, sizeof(i64))), runs(bytes_of(n, sizeof(i64)));
  check(cuda_sort::encode_keys(t, key_mode::canonical, vin, keys.get(), positions.get<i64>(), n, n, stream),
        "encoding keys");
  with_cub_temp("cub::DeviceRadixSort::SortPairs", [&](void* temp, std::size_t& bytes) {
    return cuda_sort::radix_sort_pairs(wide, temp, bytes, keys.get(), sorted.get(), positions.get<i64>(),
                                       perm.get<i64>(), n, key_end_bit(t), stream);
  });
  check(cuda_sort::unique_flags(t, sorted.get(), runs.get<i64>(), n, equal_nan, stream), "flagging distinct values");
  with_cub_temp("cub::DeviceScan::InclusiveSum", [&](void* temp, std::size_t& bytes) {
    return cuda_sort::inclusive_sum(temp, bytes, runs.get<i64>(), n, stream);
  });
  i64 distinct = 0;
  cuda_rt::copy_dtoh(&distinct, runs.get<i64>() + (n - 1), sizeof distinct);  // the one synchronisation
  p.values = make_array(cuda, t, shape_t{distinct});
  if (want_indices) p.indices = make_array(cuda, dtype::int64, shape_t{distinct});
  if (want_inverse) p.inverse = make_array(cuda, dtype::int64, in.shape());
  if (want_counts) p.counts = make_array(cuda, dtype::int64, shape_t{distinct});
  const device_temp starts(want_counts ? bytes_of(distinct, sizeof(i64)) : 0);
  const auto ptr = [](const array_base& a) { return a.is_null() ? nullptr : static_cast<i64*>(detail::address_of(a)); };
  check(cuda_sort::unique_scatter(t, sorted.get(), perm.get<i64>(), runs.get<i64>(), n, detail::address_of(p.values),
                                  ptr(p.indices), ptr(p.inverse), starts.get<i64>(), stream),
        "writing the distinct values");
  if (want_counts)
    check(cuda_sort::counts_from_starts(starts.get<i64>(), distinct, n, ptr(p.counts), stream), "counting values");
  return p;
}

}  // namespace jf::detail::sorting
