// The untyped checks of jf::combinations, jf::cartesian and jf::unzip (combinations.hpp, cartesian.hpp).
#include <cstddef>
#include <string>

#include "jetfuse/detail/combinations_checks.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

void check_combinations_arity(int n) {
  if (n != 2 && n != 3)
    throw value_error("jf::combinations: n=" + std::to_string(n) +
                      " is not supported (combinations of 2 or 3 elements of each list)");
}

void check_same_arity(int arity, int field_arity) {
  if (arity != field_arity)
    throw value_error("cannot broadcast nested list (combinations of " + std::to_string(field_arity) + " and of " +
                      std::to_string(arity) + " elements of the same lists)");
}

void throw_unzip_arity(int n, std::size_t wanted) {
  throw value_error("jf::unzip<" + std::to_string(wanted) + ">: the combinations have " + std::to_string(n) +
                    " slots; use jf::unzip<" + std::to_string(n) + ">");
}

void check_cartesian_operands(const array_base& offsets_a, const array_base& offsets_b) {
  if (!(offsets_a.device() == offsets_b.device()))
    throw backend_mismatch("jf::cartesian: the first array is on " + to_string(offsets_a.device()) + ", the second on " +
                           to_string(offsets_b.device()) + ": one backend for both");
  if (offsets_a.size() != offsets_b.size())
    throw value_error("cannot broadcast nested list (jf::cartesian: arrays of " + std::to_string(offsets_a.size() - 1) +
                      " and " + std::to_string(offsets_b.size() - 1) +
                      " lists; ak.cartesian with axis=1 needs the same number of lists)");
}

}  // namespace jf::detail
