// The CPU's sort, argsort and unique (core/sort_backends.hpp): the reference the GPU is tested
// against. Each row is copied out (as values, or (value, position) pairs), std::stable_sort'ed with
// numpy's order (NaN after everything else; -0.0 == +0.0, so those keep their order), and copied
// into the result; rows run in parallel on the thread pool, and one long row is sorted in parallel
// pieces merged pairwise (std::inplace_merge keeps the sort stable).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>

#include "core/sort_backends.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::sorting {

namespace {

using i64 = std::int64_t;

// numpy's order: NaN after everything else, equal values (and all NaNs) tie.
template <class T>
bool less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return a < b || (std::isnan(b) && !std::isnan(a));
  else
    return a < b;
}

template <class T>
struct ranked {
  T value;
  i64 position;
};
template <class T>
bool less_ranked(const ranked<T>& a, const ranked<T>& b) {
  return less(a.value, b.value);
}

// Runs f(begin, end) over [0, n) on the thread pool (chunks of at least min_chunk).
template <class F>
void parallel(i64 n, i64 min_chunk, F& f) {
  cpu_eval::parallel_for(
      n, min_chunk, [](void* ctx, i64 b, i64 e) { (*static_cast<F*>(ctx))(b, e); }, &f);
}

// std::stable_sort of v[0, n) in 2^k pieces sorted in parallel, then merged pairwise in rounds.
template <class E, class C>
void parallel_stable_sort(E* v, i64 n, C comp) {
  int pieces = 1;
  while (pieces < cpu_eval::num_threads() && n / (2 * pieces) >= (i64(1) << 14)) pieces *= 2;
  if (pieces == 1) {
    std::stable_sort(v, v + n, comp);
    return;
  }
  const auto bound = [&](i64 k) { return n * k / pieces; };
  auto sort_pieces = [&](i64 b, i64 e) {
    for (i64 k = b; k < e; ++k) std::stable_sort(v + bound(k), v + bound(k + 1), comp);
  };
  parallel(pieces, 1, sort_pieces);
  for (i64 width = 1; width < pieces; width *= 2) {
    auto merge_pairs = [&](i64 b, i64 e) {
      for (i64 k = b; k < e; ++k)
        std::inplace_merge(v + bound(2 * width * k), v + bound(2 * width * k + width), v + bound(2 * width * (k + 1)),
                           comp);
    };
    parallel(pieces / (2 * width), 1, merge_pairs);
  }
}

// The rows of an array of ndim >= 1: row r (over the leading axes, row-major) starts at
// offset(r) and steps by `step` elements.
struct rows_of {
  const array_base& a;
  i64 count, length, step;
  explicit rows_of(const array_base& x)
      : a(x), length(x.ndim() ? x.shape()[x.ndim() - 1] : 1), step(x.ndim() ? x.strides()[x.ndim() - 1] : 1) {
    count = length ? x.size() / length : 0;
  }
  i64 offset(i64 r) const {
    i64 off = 0;
    for (int d = a.ndim() - 2; d >= 0; --d) {
      off += (r % a.shape()[d]) * a.strides()[d];
      r /= a.shape()[d];
    }
    return off;
  }
};

template <class E>
std::unique_ptr<E[]> scratch(i64 n) {
  std::unique_ptr<E[]> p(new (std::nothrow) E[static_cast<std::size_t>(n)]);
  if (!p)
    throw out_of_memory("jetfuse: cannot allocate " + std::to_string(n * static_cast<i64>(sizeof(E))) +
                        " bytes of host memory to sort");
  return p;
}

// Sorts each row of `in` into `out`: Argsort writes the positions, else the values.
template <class T, bool Argsort>
void sort_rows(const array_base& in, const array_base& out) {
  using E = std::conditional_t<Argsort, ranked<T>, T>;
  using R = std::conditional_t<Argsort, i64, T>;
  const rows_of src(in), dst(out);
  const T* x = static_cast<const T*>(detail::address_of(in));
  R* y = static_cast<R*>(detail::address_of(out));
  const i64 n = src.length;
  const std::unique_ptr<E[]> buf = scratch<E>(src.count * n);
  const auto comp = [](const E& a, const E& b) {
    if constexpr (Argsort)
      return less_ranked(a, b);
    else
      return less(a, b);
  };
  const auto load = [&](i64 r, E* row) {
    const T* p = x + src.offset(r);
    for (i64 j = 0; j < n; ++j) {
      if constexpr (Argsort)
        row[j] = E{p[j * src.step], j};
      else
        row[j] = p[j * src.step];
    }
  };
  const auto store = [&](i64 r, const E* row) {
    R* q = y + dst.offset(r);
    for (i64 j = 0; j < n; ++j) {
      if constexpr (Argsort)
        q[j * dst.step] = row[j].position;
      else
        q[j * dst.step] = row[j];
    }
  };
  if (src.count == 1) {
    load(0, buf.get());
    parallel_stable_sort(buf.get(), n, comp);
    store(0, buf.get());
    return;
  }
  auto work = [&](i64 b, i64 e) {
    for (i64 r = b; r < e; ++r) {
      E* row = buf.get() + r * n;
      load(r, row);
      std::stable_sort(row, row + n, comp);
      store(r, row);
    }
  };
  parallel(src.count, std::max<i64>(1, (i64(1) << 14) / n), work);
}

// The value a run of equal elements stands for: +0.0 for zeros, the default NaN for NaNs.
template <class T>
T canonical(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return std::numeric_limits<T>::quiet_NaN();
    if (v == 0) return T(0);
  }
  return v;
}

template <class T>
unique_parts unique_of(const array_base& in, bool equal_nan, bool want_indices, bool want_inverse, bool want_counts) {
  const rows_of src(in);
  const T* x = static_cast<const T*>(detail::address_of(in));
  const i64 total = in.size();
  const std::unique_ptr<ranked<T>[]> buf = scratch<ranked<T>>(total);
  for (i64 r = 0, k = 0; r < src.count; ++r) {
    const T* p = x + src.offset(r);
    for (i64 j = 0; j < src.length; ++j, ++k) buf[k] = {p[j * src.step], k};
  }
  parallel_stable_sort(buf.get(), total, less_ranked<T>);
  const auto same = [&](T a, T b) {
    if constexpr (std::is_floating_point_v<T>)
      if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b);
    return a == b;
  };
  // starts[u] = the sorted position where distinct value u begins.
  std::unique_ptr<i64[]> starts = scratch<i64>(total + 1);
  i64 u = 0;
  for (i64 i = 0; i < total; ++i)
    if (i == 0 || !same(buf[i - 1].value, buf[i].value)) starts[u++] = i;
  starts[u] = total;

  unique_parts p;
  p.values = make_array(cpu, dtype_v<T>, shape_t{u});
  T* values = static_cast<T*>(detail::address_of(p.values));
  for (i64 k = 0; k < u; ++k) values[k] = canonical(buf[starts[k]].value);
  if (want_indices) {
    p.indices = make_array(cpu, dtype::int64, shape_t{u});
    i64* indices = static_cast<i64*>(detail::address_of(p.indices));
    for (i64 k = 0; k < u; ++k) indices[k] = buf[starts[k]].position;  // stable: the first occurrence
  }
  if (want_inverse) {
    p.inverse = make_array(cpu, dtype::int64, in.shape());
    i64* inverse = static_cast<i64*>(detail::address_of(p.inverse));
    for (i64 k = 0; k < u; ++k)
      for (i64 i = starts[k]; i < starts[k + 1]; ++i) inverse[buf[i].position] = k;
  }
  if (want_counts) {
    p.counts = make_array(cpu, dtype::int64, shape_t{u});
    i64* counts = static_cast<i64*>(detail::address_of(p.counts));
    for (i64 k = 0; k < u; ++k) counts[k] = starts[k + 1] - starts[k];
  }
  return p;
}

}  // namespace

void cpu_sort_rows(const array_base& in, const array_base& out) {
  visit_dtype(in.dtype(), [&]<class T>(std::type_identity<T>) { sort_rows<T, false>(in, out); });
}

void cpu_argsort_rows(const array_base& in, const array_base& out) {
  visit_dtype(in.dtype(), [&]<class T>(std::type_identity<T>) { sort_rows<T, true>(in, out); });
}

unique_parts cpu_unique(const array_base& in, bool equal_nan, bool indices, bool inverse, bool counts) {
  return visit_dtype(in.dtype(), [&]<class T>(std::type_identity<T>) {
    return unique_of<T>(in, equal_nan, indices, inverse, counts);
  });
}

}  // namespace jf::detail::sorting
