// The host side of printing lists of tuples (jetfuse/detail/tuple_window.hpp): the shown tuples of
// combinations and cartesian products from the shown lists' offsets, unranked exactly in int64.
#include "jetfuse/detail/tuple_window.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

using i64 = std::int64_t;

// C(c, k), k = 2, 3, for c whose C(c, k) fits: the division by 3 first where it is exact.
i64 choose(i64 c, int k) {
  const i64 two = c * (c - 1) / 2;
  if (k == 2 || c < 3) return k == 2 ? two : 0;
  return two % 3 == 0 ? two / 3 * (c - 2) : two * ((c - 2) / 3);
}

// The largest c in [0, limit] with C(c, k) <= v, from a float estimate corrected exactly.
i64 largest_choose_at_most(i64 v, int k, i64 limit) {
  const double est = k == 2 ? (1 + std::sqrt(8.0 * static_cast<double>(v) + 1)) / 2 : std::cbrt(6.0 * static_cast<double>(v)) + 1;
  i64 c = std::min<i64>(limit, std::max<i64>(0, static_cast<i64>(est)));
  while (c < limit && choose(c + 1, k) <= v) ++c;
  while (c > 0 && choose(c, k) > v) --c;
  return c;
}

}  // namespace

i64 combinations_count(i64 m, int k) {
  if (m < k) return 0;
  i64 a = 0, b = 0;
  // m (m - 1) / 2, then times (m - 2) / 3 with the division by 3 first where it is exact.
  const bool third = k == 3 && (m - 2) % 3 == 0;
  if (__builtin_mul_overflow(m, m - 1, &a) ||
      (k == 3 && __builtin_mul_overflow(third ? a / 2 : a / 2 / 3, third ? (m - 2) / 3 : m - 2, &b)))
    throw value_error("jetfuse: a list of " + std::to_string(m) + " elements has more than 2^63 combinations of " +
                      std::to_string(k));
  return k == 2 ? a / 2 : b;
}

std::array<i64, 3> unrank_combination(i64 m, int k, i64 r) {
  // The combinatorial number system on the reversed slots (c = m - 1 - j): the reversed rank
  // C(m, k) - 1 - r is C(c0, k) + C(c1, k - 1) [+ c2], c0 > c1 > c2.
  i64 v = combinations_count(m, k) - 1 - r;
  std::array<i64, 3> j{0, 0, 0};
  i64 limit = m - 1;
  for (int s = 0; s < k; ++s) {
    const int left = k - s;
    const i64 c = left == 1 ? v : largest_choose_at_most(v, left, limit);
    if (left > 1) v -= choose(c, left);
    j[static_cast<std::size_t>(s)] = m - 1 - c;
    limit = c - 1;
  }
  return j;
}

std::vector<i64> shown_bounds_positions(i64 n) {
  std::vector<i64> at;
  for (i64 l : window_positions(n)) {
    at.push_back(l);
    at.push_back(l + 1);
  }
  return at;
}

tuple_window combinations_window(i64 n, const std::vector<i64>& bounds, int k) {
  tuple_window w{n, {}, std::vector<std::vector<i64>>(static_cast<std::size_t>(k))};
  for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
    const i64 start = bounds[i], m = bounds[i + 1] - start, count = combinations_count(m, k);
    w.lengths.push_back(count);
    for (i64 r : window_positions(count)) {
      const std::array<i64, 3> j = unrank_combination(m, k, r);
      for (int s = 0; s < k; ++s) w.positions[static_cast<std::size_t>(s)].push_back(start + j[static_cast<std::size_t>(s)]);
    }
  }
  return w;
}

tuple_window cartesian_window(i64 n, const std::vector<i64>& bounds_a, const std::vector<i64>& bounds_b) {
  tuple_window w{n, {}, std::vector<std::vector<i64>>(2)};
  for (std::size_t i = 0; i + 1 < bounds_a.size(); i += 2) {
    const i64 na = bounds_a[i + 1] - bounds_a[i], nb = bounds_b[i + 1] - bounds_b[i];
    i64 count = 0;
    if (__builtin_mul_overflow(na, nb, &count))
      throw value_error("jetfuse: a cartesian product of lists of " + std::to_string(na) + " and " + std::to_string(nb) +
                        " elements has more than 2^63 pairs");
    w.lengths.push_back(count);
    for (i64 r : window_positions(count)) {
      w.positions[0].push_back(bounds_a[i] + r / nb);
      w.positions[1].push_back(bounds_b[i] + r % nb);
    }
  }
  return w;
}

tuple_window tuples_window(i64 n, const std::vector<i64>& bounds, int arity) {
  tuple_window w{n, {}, {}};
  std::vector<i64> at;
  for (std::size_t i = 0; i + 1 < bounds.size(); i += 2) {
    const i64 length = bounds[i + 1] - bounds[i];
    w.lengths.push_back(length);
    for (i64 e : window_positions(length)) at.push_back(bounds[i] + e);
  }
  w.positions.assign(static_cast<std::size_t>(arity), at);
  return w;
}

pp_item tuple_window::tree(const std::vector<std::vector<pp_item>>& slot_items) const {
  std::vector<pp_item> lists;
  std::size_t at = 0;
  for (i64 length : lengths) {
    const std::size_t shown = window_positions(length).size();
    std::vector<pp_item> items;
    for (std::size_t t = at; t < at + shown; ++t) {
      pp_item tuple;
      tuple.k = pp_item::kind::tuple;
      for (const std::vector<pp_item>& slot : slot_items) tuple.fields.emplace_back(std::string(), slot[t]);
      items.push_back(std::move(tuple));
    }
    at += shown;
    lists.push_back(window_list(length, std::move(items)));
  }
  return window_list(n, std::move(lists));
}

}  // namespace jf::detail
