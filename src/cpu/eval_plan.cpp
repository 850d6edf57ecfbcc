// Operand addressing of the Eigen evaluator: flat or through offset tables, and the final dtype
// conversion of results evaluated in the expression's own dtype.
#include "jetfuse/cpu/eval_plan.hpp"

#include <algorithm>
#include <cstring>

#include "jetfuse/cpu/thread_pool.hpp"
#include "jetfuse/detail/engine.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::cpu_eval {
namespace {

operand_access access_of(eval_plan& p, const array_base& a, bool flat) {
  operand_access acc;
  char* elem0 = static_cast<char*>(a.raw_data());
  if (flat) {
    acc.base = elem0;
    return acc;
  }
  const strides_t eff = detail::effective_strides(a, p.iter);
  std::int64_t lo = 0, hi = 0;
  for (int k = 0; k < p.iter.size(); ++k) {
    const std::int64_t span = (p.iter[k] - 1) * eff[k];
    (span < 0 ? lo : hi) += span;
  }
  acc.base = elem0 + lo * size_of(a.dtype());
  acc.extent = hi - lo + 1;
  const auto it = std::find(p.tables.begin(), p.tables.end(), eff);
  acc.table = static_cast<int>(it - p.tables.begin());
  if (it == p.tables.end()) {
    p.tables.push_back(eff);
    p.table_shift.push_back(-lo);
  }
  return acc;
}

bool is_flat(const array_base& a, const shape_t& iter) {
  return detail::classify(detail::effective_strides(a, iter), iter) == ir::layout::contiguous;
}

}  // namespace

void make_plan(eval_plan& p, const array_base* const* leaves, int nleaves, const array_base& out) {
  p.iter = out.shape();
  p.n = p.iter.product();
  p.flat = is_flat(out, p.iter);
  for (int i = 0; i < nleaves && p.flat; ++i) p.flat = is_flat(*leaves[i], p.iter);
  p.tables.clear();
  p.table_shift.clear();
  p.out = access_of(p, out, p.flat);
  p.leaves.resize(static_cast<std::size_t>(nleaves));
  for (int i = 0; i < nleaves; ++i) p.leaves[static_cast<std::size_t>(i)] = access_of(p, *leaves[i], p.flat);
}

void fill_offsets(const eval_plan& p, std::int64_t start, std::int64_t len, std::int64_t* dst) {
  const int nt = static_cast<int>(p.tables.size());
  const int nd = p.iter.size();
  std::int64_t cur[16];  // at most 1 + max leaves we expect; larger plans take the slow path below
  std::vector<std::int64_t> big;
  std::int64_t* c = cur;
  if (nt > 16) {
    big.resize(static_cast<std::size_t>(nt));
    c = big.data();
  }
  // Multi-index of `start` (row-major) and the offsets there.
  std::int64_t idx[max_ndim] = {};
  std::int64_t rest = start;
  for (int k = nd - 1; k >= 0; --k) {
    idx[k] = rest % p.iter[k];
    rest /= p.iter[k];
  }
  for (int t = 0; t < nt; ++t) {
    c[t] = p.table_shift[static_cast<std::size_t>(t)];
    for (int k = 0; k < nd; ++k) c[t] += idx[k] * p.tables[static_cast<std::size_t>(t)][k];
  }
  for (std::int64_t i = 0; i < len; ++i) {
    for (int t = 0; t < nt; ++t) dst[t * block_elements + i] = c[t];
    if (nd == 0) continue;
    // Odometer step: the last axis advances, carries move left.
    int k = nd - 1;
    ++idx[k];
    for (int t = 0; t < nt; ++t) c[t] += p.tables[static_cast<std::size_t>(t)][k];
    while (k > 0 && idx[k] == p.iter[k]) {
      for (int t = 0; t < nt; ++t) c[t] -= p.tables[static_cast<std::size_t>(t)][k] * p.iter[k];
      idx[k] = 0;
      --k;
      ++idx[k];
      for (int t = 0; t < nt; ++t) c[t] += p.tables[static_cast<std::size_t>(t)][k];
    }
  }
}

namespace {
struct cast_job {
  const eval_plan* plan;
  const array_base* dst;
  const array_base* src;
};

template <class To, class From> void cast_block(const cast_job& j, std::int64_t b, std::int64_t e) {
  const From* s = static_cast<const From*>(j.src->raw_data());
  if (j.plan->flat) {
    To* d = static_cast<To*>(j.dst->raw_data());
    for (std::int64_t i = b; i < e; ++i) d[i] = ops::jf_cast<To>(s[i]);
    return;
  }
  To* d = reinterpret_cast<To*>(j.plan->out.base);
  std::vector<std::int64_t> off(static_cast<std::size_t>(block_elements * static_cast<std::int64_t>(j.plan->tables.size())));
  for (std::int64_t s0 = b; s0 < e; s0 += block_elements) {
    const std::int64_t l = std::min(block_elements, e - s0);
    fill_offsets(*j.plan, s0, l, off.data());
    const std::int64_t* o = off.data() + j.plan->out.table * block_elements;
    for (std::int64_t i = 0; i < l; ++i) d[o[i]] = ops::jf_cast<To>(s[s0 + i]);
  }
}

void cast_chunk(void* ctx, std::int64_t b, std::int64_t e) {
  const cast_job& j = *static_cast<const cast_job*>(ctx);
  visit_dtype(j.dst->dtype(), [&](auto to) {
    visit_dtype(j.src->dtype(), [&](auto from) {
      cast_block<typename decltype(to)::type, typename decltype(from)::type>(j, b, e);
    });
  });
}
}  // namespace

void cast_into(const array_base& dst, const array_base& src) {
  if (!(dst.shape() == src.shape()) || !src.is_contiguous())
    throw shape_error("jetfuse: internal cast of " + to_string(src.shape()) + " into " + to_string(dst.shape()));
  eval_plan p;
  make_plan(p, nullptr, 0, dst);
  cast_job j{&p, &dst, &src};
  parallel_for(p.n, min_chunk_elements, &cast_chunk, &j);
}

}  // namespace jf::cpu_eval
