// The typed inner loops of the CPU executor (src/cpu/executor.cpp): one loop per (operation,
// dtype) over a column of iterations, the reduction monoids' lane accumulators, and plain copies.
// Instantiated once in src/cpu/executor_kernels.cpp; the executor only sees function pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "jetfuse/dtype.hpp"
#include "jetfuse/ops.hpp"

namespace jf::cpu_exec {

// Iterations evaluated at once: every node gets a column of this many values (8 KiB at most).
inline constexpr std::int64_t block_len = 1024;
// The flat iterations of a domain are cut every chunk_len for reductions (and parallel tiles).
inline constexpr std::int64_t chunk_len = 16 * 1024;
// Independent accumulators of a reduction piece (element f goes to lane f % lanes).
inline constexpr int lanes = 8;
// Floating-point sums cut their pieces at every multiple of pair_len and add the blocks' partials
// pairwise (numpy's pairwise_sum: 8 accumulators over 128 elements): O(log n) rounding errors.
inline constexpr std::int64_t pair_len = 128;
static_assert(chunk_len % block_len == 0 && block_len % pair_len == 0 && pair_len % lanes == 0);

// out[i] = op(args[0][i], ...) for i < n, in the node's dtypes (jf::ops). args and out never
// overlap.
using elementwise_fn = void (*)(const void* const* args, void* out, std::int64_t n);
// The loop of an element-wise op whose (value) arguments are arg_type; nullptr when undefined.
elementwise_fn find_elementwise(op code, dtype arg_type);
// jf::ops::jf_cast<to>(from).
elementwise_fn find_cast(dtype to, dtype from);
// One element of a combining put (numpy's ufunc.at): *target = jf_cast<T>(op(jf_cast<C>(*target),
// *value)), T the target's dtype, C the value's. code: add, subtract, multiply, minimum or maximum.
using put_combine_fn = void (*)(void* target, const void* value);
put_combine_fn find_put_combine(op code, dtype target, dtype value);

// One monoid over one dtype. An accumulator is T, or jf_arg<T> for argmin/argmax. A piece in
// progress is state_bytes of opaque state (its lanes, and the block partials of pairwise sums).
struct reduce_kernels {
  std::size_t acc_bytes = 0;
  std::size_t state_bytes = 0;
  void (*identity)(void* acc) = nullptr;
  void (*begin)(void* state) = nullptr;  // a piece with no element yet
  // Adds x[i], the element of flat index f + i, for i < n, in the order of the top of
  // executor.cpp; i where guard[i] is false adds the identity (guard may be null); pos is the
  // position of x[0] in its result (argmin/argmax). Calls follow each other in f.
  void (*accumulate)(void* state, const void* x, const bool* guard, std::int64_t n, std::int64_t f,
                     std::int64_t pos) = nullptr;
  void (*end)(void* state, void* piece) = nullptr;                          // the piece's value
  void (*combine)(void* acc, const void* piece) = nullptr;                  // acc = combine(acc, piece)
  void (*store)(const void* acc, void* results, std::int64_t r) = nullptr;  // value, or the position
  // acc[i] = combine(acc[i], x[i]) for i < n (acc: n accumulators; i where guard[i] is false is
  // skipped): the rows of an outer-axis reduction, one result per column. Null for argmin/argmax.
  void (*accumulate_rows)(void* acc, const void* x, const bool* guard, std::int64_t n) = nullptr;
  // Per segment s < nseg, the elements [start[s] - first, start[s + 1] - first) of x (guard may be
  // null): the identity combined with pairwise(its pieces, cut every chunk_len, each begin,
  // accumulate from position 0, end), stored as result s: the list executor's per-list
  // reduction, in one typed loop without a call or an allocation per list.
  void (*reduce_segments)(const void* x, const bool* guard, const std::int64_t* start, std::int64_t first,
                          std::int64_t nseg, void* results) = nullptr;
};
// Throws jf::dtype_error where the monoid is not defined for t (any/all need bool).
reduce_kernels find_reduce(monoid m, dtype t);

// dst[i] = src[i * stride] / dst[i * stride] = src[i], elements of elem bytes.
inline void gather(void* dst, const void* src, std::int64_t stride, std::int64_t n, int elem) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(n * elem));
    return;
  }
  auto loop = [&](auto t) {
    using T = decltype(t);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    for (std::int64_t i = 0; i < n; ++i) d[i] = s[i * stride];
  };
  if (elem == 8)
    loop(std::uint64_t{});
  else if (elem == 4)
    loop(std::uint32_t{});
  else if (elem == 2)
    loop(std::uint16_t{});
  else
    loop(std::uint8_t{});
}
inline void scatter(void* dst, std::int64_t stride, const void* src, std::int64_t n, int elem) {
  if (stride == 1) {
    std::memmove(dst, src, static_cast<std::size_t>(n * elem));
    return;
  }
  auto loop = [&](auto t) {
    using T = decltype(t);
    T* d = static_cast<T*>(dst);
    const T* s = static_cast<const T*>(src);
    for (std::int64_t i = 0; i < n; ++i) d[i * stride] = s[i];
  };
  if (elem == 8)
    loop(std::uint64_t{});
  else if (elem == 4)
    loop(std::uint32_t{});
  else if (elem == 2)
    loop(std::uint16_t{});
  else
    loop(std::uint8_t{});
}

}  // namespace jf::cpu_exec
