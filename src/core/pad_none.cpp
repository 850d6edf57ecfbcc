// The untyped checks and errors of jf::pad_none (jetfuse/pad_none.hpp).
#include <cstdint>
#include <string>

#include "jetfuse/errors.hpp"

namespace jf::detail {

void check_pad_none(std::int64_t target, bool clip, int axis) {
  if (axis == 0 || axis == -2)
    throw value_error(
        "jf::pad_none of a jagged array: only axis=1 (or -1) in this version (Awkward's axis=0 pads "
        "the number of lists)");
  if (axis != 1 && axis != -1)
    throw axis_error("axis=" + std::to_string(axis) + " exceeds the depth of this array (2)");  // Awkward's words
  if (clip && target < 0) throw value_error("negative dimensions are not allowed");  // Awkward's (numpy's) words
}

void throw_padded_kind(bool clip) {
  if (clip)
    throw value_error(
        "jf::pad_none(x, target, true) gives n * target * ?T: convert it to a jf::option_array<T> "
        "(jf::fill_none of it to a jf::array<T>), not to a jagged type");
  throw value_error(
      "jf::pad_none(x, target, false) gives n * var * ?T: convert it to a jf::jagged_option<T> "
      "(jf::fill_none of it to a jf::jagged<T>), not to a regular type");
}

}  // namespace jf::detail
