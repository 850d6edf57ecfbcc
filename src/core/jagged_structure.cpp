// The untyped checks and Awkward's errors of jf::jagged's structure functions
// (jetfuse/jagged_structure.hpp).
#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/jagged_checks.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

void throw_list_index(std::int64_t n, std::int64_t k) {
  // Awkward's words, without its pointer into the compiled kernel's source.
  throw index_error("cannot slice ListArray (of length " + std::to_string(n) + ") with array(" + std::to_string(k) +
                    "): index out of range while attempting to get index " + std::to_string(k));
}

void throw_list_positions(const array_base& lists, std::int64_t n) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(lists.size()));
  lists.read_into(v.data());
  std::string shown = repr(lists);  // numpy's repr; int64 is its default integer, shown without a dtype
  const std::string tail = ", dtype=int64)";
  if (shown.size() > tail.size() && shown.compare(shown.size() - tail.size(), tail.size(), tail) == 0)
    shown = shown.substr(0, shown.size() - tail.size()) + ")";
  for (std::int64_t i : v)
    if (i < -n || i >= n)
      throw index_error("cannot slice ListOffsetArray (of length " + std::to_string(n) + ") with " + shown +
                        ": index " + std::to_string(i) + " is out of bounds for axis 0 with size " + std::to_string(n));
  throw index_error("jf::jagged: list positions out of range");  // not reached: the caller saw one
}

void check_list_selection(const array_base& sel, std::int64_t n, device dev, bool is_mask) {
  const char* what = is_mask ? "mask" : "list positions";
  if (sel.is_null())
    throw value_error(std::string("jf::jagged: the ") + what + " are a null handle (default-constructed)");
  if (sel.ndim() != 1)
    throw value_error(std::string("jf::jagged: the ") + what + " must be 1-dimensional in this version, not of shape " +
                      to_string(sel.shape()));
  if (sel.device() != dev)
    throw backend_mismatch(std::string("jf::jagged: the ") + what + " are on " + to_string(sel.device()) +
                           " and the lists on " + to_string(dev) + "; move them with jf::to_backend");
  if (is_mask && sel.size() != n)  // numpy's words (Awkward 2.14 silently accepts a shorter mask)
    throw index_error("boolean index did not match indexed array along axis 0; size of axis is " + std::to_string(n) +
                      " but size of corresponding boolean axis is " + std::to_string(sel.size()));
}

void check_concatenate(std::int64_t na, std::int64_t nb, device da, device db) {
  if (da != db)
    throw backend_mismatch("jf::concatenate: the arrays are on " + to_string(da) + " and " + to_string(db) +
                           "; move them with jf::to_backend");
  if (na != nb)  // Awkward's words (it broadcasts a single list; jetfuse does not)
    throw value_error("cannot broadcast RegularArray of size " + std::to_string(nb) + " with RegularArray of size " +
                      std::to_string(na));
}

}  // namespace jf::detail
