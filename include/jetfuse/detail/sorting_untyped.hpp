// The untyped implementations behind jetfuse/sorting.hpp (src/core/sorting.cpp), with numpy's
// checks and messages: what the library's sorting files compile against, without the front end.
#pragma once

#include "jetfuse/array.hpp"

namespace jf::detail {

array_base sort(const array_base& a, int axis, bool flat);     // flat: axis=None
array_base argsort(const array_base& a, int axis, bool flat);  // int64
struct unique_parts {
  array_base values, indices, inverse, counts;  // those not asked for are null handles
};
// The sorted distinct values of a flattened; equal_nan: all NaNs are one value (numpy's default).
unique_parts unique(const array_base& a, bool equal_nan, bool indices, bool inverse, bool counts);

}  // namespace jf::detail
