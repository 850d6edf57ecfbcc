// The untyped checks of jf::combinations and jf::unzip (combinations.hpp).
#include <cstddef>
#include <string>

#include "jetfuse/combinations.hpp"

namespace jf::detail {

void check_combinations_arity(int n) {
  if (n != 2 && n != 3)
    throw value_error("jf::combinations: n=" + std::to_string(n) +
                      " is not supported (combinations of 2 or 3 elements of each list)");
}

void check_materialised_arity(int n) {
  if (n != 2)
    throw value_error("jetfuse: materialising combinations of " + std::to_string(n) +
                      " elements is not supported yet (pairs only); reduce them per list instead");
}

void throw_unzip_arity(int n, std::size_t wanted) {
  throw value_error("jf::unzip<" + std::to_string(wanted) + ">: the combinations have " + std::to_string(n) +
                    " slots; use jf::unzip<" + std::to_string(n) + ">");
}

}  // namespace jf::detail
