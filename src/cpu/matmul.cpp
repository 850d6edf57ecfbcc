// The CPU's matrix products (core/matmul_backends.hpp), the reference of jf::cuda's: a blocked
// loop on the thread pool. Each task owns a block of rows of one product and walks k and the
// columns in tiles that stay in cache; the innermost loop runs along a row of b and of c (unit
// stride when b is row-major: vectorised). Floats accumulate in their own type, in order of k
// within a tile; integers wrap around as numpy's (unsigned arithmetic); bool is OR of ANDs. Float
// products with alpha / beta (matmul_node.cpp's rewrites) are summed in a scratch tile and
// written once as alpha * sum + beta * c.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/matmul_backends.hpp"
#include "jetfuse/cpu/thread_pool.hpp"

namespace jf::detail::matmul_impl {

namespace {

using i64 = std::int64_t;

constexpr i64 row_block = 16, k_tile = 256, col_tile = 1024;

// The type products are summed in: integers as unsigned (defined wrap-around).
template <class T>
struct acc {
  using type = T;
};
template <class T>
requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) struct acc<T> {
  using type = std::make_unsigned_t<T>;
};
template <class T>
using acc_t = typename acc<T>::type;
// The type a product is computed in: 8- and 16-bit values would promote to int in C++ (where a
// product can overflow), so at least unsigned int.
template <class T>
using product_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, acc_t<T>>;

template <class T, bool UnitB>
void rows(const problem& p, i64 batch, i64 i0, i64 i1) {
  using A = acc_t<T>;
  const T* a = static_cast<const T*>(p.a.data) + batch * p.a.batch_stride;
  const T* b = static_cast<const T*>(p.b.data) + batch * p.b.batch_stride;
  T* c = static_cast<T*>(p.c) + batch * p.m * p.n;
  const i64 bs = UnitB ? 1 : p.b.col_stride;
  for (i64 i = i0; i < i1; ++i) std::fill(c + i * p.n, c + (i + 1) * p.n, T{});
  for (i64 j0 = 0; j0 < p.n; j0 += col_tile) {
    const i64 j1 = std::min(p.n, j0 + col_tile);
    for (i64 k0 = 0; k0 < p.k; k0 += k_tile) {
      const i64 k1 = std::min(p.k, k0 + k_tile);
      for (i64 i = i0; i < i1; ++i) {
        A* crow = reinterpret_cast<A*>(c + i * p.n);
        for (i64 q = k0; q < k1; ++q) {
          const A aiq = static_cast<A>(a[i * p.a.row_stride + q * p.a.col_stride]);
          const T* brow = b + q * p.b.row_stride;
          if constexpr (std::is_same_v<T, bool>) {
            if (!aiq) continue;
            for (i64 j = j0; j < j1; ++j) crow[j] = crow[j] || brow[j * bs];
          } else {
            using P = product_t<T>;
            for (i64 j = j0; j < j1; ++j)
              crow[j] = static_cast<A>(crow[j] + static_cast<P>(aiq) * static_cast<P>(static_cast<A>(brow[j * bs])));
          }
        }
      }
    }
  }
}

// alpha * (a @ b) + beta * c for floats: each (row block x column tile) is summed into a scratch
// tile in the same order as rows(), then written once as alpha * sum (+ beta * c): the scaling
// and the addend cost no pass of their own.
template <class T, bool UnitB>
void scaled_rows(const problem& p, i64 batch, i64 i0, i64 i1) {
  const T* a = static_cast<const T*>(p.a.data) + batch * p.a.batch_stride;
  const T* b = static_cast<const T*>(p.b.data) + batch * p.b.batch_stride;
  T* c = static_cast<T*>(p.c) + batch * p.m * p.n;
  const i64 bs = UnitB ? 1 : p.b.col_stride;
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
  T tile[row_block * col_tile];
  for (i64 j0 = 0; j0 < p.n; j0 += col_tile) {
    const i64 j1 = std::min(p.n, j0 + col_tile), w = j1 - j0;
    std::fill(tile, tile + (i1 - i0) * w, T{});
    for (i64 k0 = 0; k0 < p.k; k0 += k_tile) {
      const i64 k1 = std::min(p.k, k0 + k_tile);
      for (i64 i = i0; i < i1; ++i) {
        T* trow = tile + (i - i0) * w - j0;
        for (i64 q = k0; q < k1; ++q) {
          const T aiq = a[i * p.a.row_stride + q * p.a.col_stride];
          const T* brow = b + q * p.b.row_stride;
          for (i64 j = j0; j < j1; ++j) trow[j] += aiq * brow[j * bs];
        }
      }
    }
    for (i64 i = i0; i < i1; ++i) {
      const T* trow = tile + (i - i0) * w - j0;
      T* crow = c + i * p.n;
      if (p.beta == 0)
        for (i64 j = j0; j < j1; ++j) crow[j] = alpha * trow[j];
      else
        for (i64 j = j0; j < j1; ++j) crow[j] = alpha * trow[j] + beta * crow[j];
    }
  }
}

template <class T>
void gemm(const problem& p) {
  const i64 blocks = (p.m + row_block - 1) / row_block;
  struct ctx_t {
    const problem* p;
    i64 blocks;
  } ctx{&p, blocks};
  // One task: a block of rows of one product; enough blocks per chunk to amortise the dispatch.
  const i64 work_per_block = row_block * p.n * p.k;
  const i64 min_chunk = std::max<i64>(1, (i64(1) << 18) / std::max<i64>(1, work_per_block));
  cpu_eval::parallel_for(
      p.batch * blocks, min_chunk,
      [](void* v, i64 begin, i64 end) {
        const auto& x = *static_cast<ctx_t*>(v);
        for (i64 t = begin; t < end; ++t) {
          const i64 batch = t / x.blocks, i0 = (t % x.blocks) * row_block;
          const i64 i1 = std::min(x.p->m, i0 + row_block);
          if constexpr (std::is_floating_point_v<T>) {
            if (x.p->alpha != 1 || x.p->beta != 0) {
              if (x.p->b.col_stride == 1)
                scaled_rows<T, true>(*x.p, batch, i0, i1);
              else
                scaled_rows<T, false>(*x.p, batch, i0, i1);
              continue;
            }
          }
          if (x.p->b.col_stride == 1)
            rows<T, true>(*x.p, batch, i0, i1);
          else
            rows<T, false>(*x.p, batch, i0, i1);
        }
      },
      &ctx);
}

}  // namespace

void cpu_gemm(const problem& p) {
  visit_dtype(p.t, [&](auto tag) { gemm<typename decltype(tag)::type>(p); });
}

}  // namespace jf::detail::matmul_impl
