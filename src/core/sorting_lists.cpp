// ak.sort / ak.argsort of jagged arrays along axis -1 (jetfuse/jagged_sorting.hpp): Awkward's axis
// checks, the result's offsets (the input's when they start at 0: the result then has the same
// lists by identity), and the backends of core/sort_backends.hpp sort each list.
#include <cstdint>
#include <string>
#include <vector>

#include "core/offsets_registry.hpp"
#include "core/sort_backends.hpp"
#include "jetfuse/detail/jagged_layout.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

std::pair<array_base, array_base> sort_lists(const array_base& offsets, const array_base& content, int axis,
                                             bool ascending, bool local_indices) {
  const char* what = local_indices ? "jf::argsort" : "jf::sort";
  if (axis == 0 || axis == -2)
    throw value_error(std::string(what) + " of a jagged array along axis=" + std::to_string(axis) +
                      " (across lists) is not supported; axis=-1 sorts within each list");
  if (axis != -1 && axis != 1)
    throw axis_error("axis=" + std::to_string(axis) + " exceeds the depth of the nested list structure (which is 2)");
  const auto [first, last] = offsets_bounds(offsets);
  const array_base out = make_array(content.device(), local_indices ? dtype::int64 : content.dtype(),
                                    shape_t{last - first});
  array_base out_offsets = offsets;
  if (first != 0) {  // a slice's offsets: the result's start at 0 (same list lengths)
    std::vector<std::int64_t> off = host_offsets(offsets);
    for (auto& o : off) o -= first;
    out_offsets = make_from_host(offsets.device(), dtype::int64, offsets.shape(), off.data());
    remember_offsets_bounds(out_offsets, 0, last - first, offsets_longest(offsets));
    remember_same_list_lengths(offsets, out_offsets);
  }
  if (content.device().kind == device_kind::cuda)
    sorting::cuda_sort_lists(offsets, content, out, ascending, local_indices);
  else
    sorting::cpu_sort_lists(offsets, content, out, ascending, local_indices);
  return {out_offsets, out};
}

}  // namespace jf::detail
