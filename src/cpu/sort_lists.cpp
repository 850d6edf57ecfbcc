// The CPU's per-list sorts of jagged arrays (core/sort_backends.hpp), the reference of jf::cuda's:
// each list's (value, position) pairs std::stable_sort'ed in Awkward's order, lists spread over the
// thread pool in chunks of about the same number of elements.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/sort_backends.hpp"
#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::sorting {

namespace {

using i64 = std::int64_t;

// Awkward's list order (ak.sort): NaN before every number in either direction; equal values
// (-0.0 and +0.0 included) tie, so a stable sort keeps them in their order.
template <class T>
bool before(T a, T b, bool ascending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && !std::isnan(b);
  }
  return ascending ? a < b : b < a;
}

template <class T>
void sort_lists(const std::vector<i64>& off, const array_base& content, const array_base& out, bool ascending,
                bool local_indices) {
  const T* x = static_cast<const T*>(detail::address_of(content));
  const i64 stride = content.strides()[0];
  const i64 lists = static_cast<i64>(off.size()) - 1;
  struct job {
    const std::vector<i64>* off;
    const T* x;
    i64 stride;
    void* out;
    bool ascending, local;
  } j{&off, x, stride, detail::address_of(out), ascending, local_indices};
  const i64 mean_length = std::max<i64>(1, (off.back() - off.front()) / std::max<i64>(1, lists));
  cpu_eval::parallel_for(
      lists, std::max<i64>(1, (i64(1) << 14) / mean_length),  // chunks of about 2^14 elements
      [](void* ctx, i64 b, i64 e) {
        const job& jb = *static_cast<const job*>(ctx);
        const std::vector<i64>& o = *jb.off;
        std::vector<i64> order;
        for (i64 i = b; i < e; ++i) {
          const i64 start = o[i], n = o[i + 1] - o[i], dst = o[i] - o.front();
          order.resize(static_cast<std::size_t>(n));
          for (i64 k = 0; k < n; ++k) order[k] = k;
          std::stable_sort(order.begin(), order.end(), [&](i64 p, i64 q) {
            return before(jb.x[(start + p) * jb.stride], jb.x[(start + q) * jb.stride], jb.ascending);
          });
          if (jb.local) {
            i64* y = static_cast<i64*>(jb.out) + dst;
            for (i64 k = 0; k < n; ++k) y[k] = order[k];
          } else {
            T* y = static_cast<T*>(jb.out) + dst;
            for (i64 k = 0; k < n; ++k) y[k] = jb.x[(start + order[k]) * jb.stride];
          }
        }
      },
      &j);
}

}  // namespace

void cpu_sort_lists(const array_base& offsets, const array_base& content, const array_base& out, bool ascending,
                    bool local_indices) {
  std::vector<i64> off(static_cast<std::size_t>(offsets.size()));
  offsets.read_into(off.data());
  visit_dtype(content.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    sort_lists<T>(off, content, out, ascending, local_indices);
  });
}

}  // namespace jf::detail::sorting
