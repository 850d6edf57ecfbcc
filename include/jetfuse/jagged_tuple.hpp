// jf::jagged_tuple<T>: Awkward's lists of tuples, `n * var * (int64, int64)` — unnamed slots of one
// dtype, each a content array, sharing ONE offsets array: what jf::argcombinations and
// jf::argcartesian give (ak.argcombinations(x, 2) is such an array). It prints as Awkward prints
// it ([[(0, 1), (0, 2), (1, 2)], [], ...], combinations_print.hpp); jf::unzip gives the slots as
// jagged arrays sharing the offsets (no copy), as ak.unzip does:
//
//   auto [i1, i2] = jf::unzip(jf::argcombinations(x, 2));
//   auto [i, j, k] = jf::unzip<3>(jf::argcombinations(x, 3));
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/combinations_checks.hpp"
#include "jetfuse/jagged.hpp"

namespace jf {

template <class T>
class jagged_tuple {
 public:
  // Offsets shared by every slot; each slot's content (checked against the offsets).
  jagged_tuple(array<std::int64_t> offsets, std::vector<array<T>> slots)
      : offsets_(std::move(offsets)), slots_(std::move(slots)) {
    for (const array<T>& s : slots_) (void)jagged<T>(offsets_, s);  // Awkward's validity check
  }

  const array<std::int64_t>& offsets() const { return offsets_; }
  std::int64_t size() const { return offsets_.size() - 1; }  // the number of lists
  int arity() const { return static_cast<int>(slots_.size()); }  // the slots of each tuple
  device backend() const { return offsets_.device(); }
  // Slot k as a jagged array (ak.unzip(t)[k]); std::out_of_range past the last.
  jagged<T> slot(int k) const { return jagged<T>(offsets_, slots_.at(static_cast<std::size_t>(k))); }
  const std::vector<array<T>>& contents() const { return slots_; }

 private:
  array<std::int64_t> offsets_;
  std::vector<array<T>> slots_;
};

// ak.unzip: the N slots (N = the tuples' arity: 2 by default, unzip<3> for triples), a std::tuple
// for structured bindings.
template <int N = 2, class T>
auto unzip(const jagged_tuple<T>& t) {
  if (t.arity() != N) detail::throw_unzip_arity(t.arity(), N);
  return [&]<int... K>(std::integer_sequence<int, K...>) { return std::make_tuple(t.slot(K)...); }(
      std::make_integer_sequence<int, N>{});
}

}  // namespace jf
