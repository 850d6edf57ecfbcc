// The untyped work of jf::jagged (jagged.hpp): Awkward's validity check of (offsets, content), the
// offsets of nested vectors, zero-copy views for slicing and flattening, type strings and errors.
#include <algorithm>
#include <string>
#include <vector>

#include "core/offsets_registry.hpp"
#include "jetfuse/detail/jagged_layout.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

void require_not_null(const array_base& a, const char* what) {
  if (a.is_null())
    throw value_error(std::string("jf::jagged: the ") + what + " are a null handle (default-constructed)");
}

}  // namespace

std::int64_t read_offset(const array_base& offsets, std::int64_t i) {
  if (offsets.dtype() == dtype::int32) {  // Awkward's Index32, kept as given
    std::int32_t v = 0;
    read_element(offsets, &i, 1, &v);
    return v;
  }
  std::int64_t v = 0;
  read_element(offsets, &i, 1, &v);
  return v;
}

void check_same_lists(const array_base& a, const array_base& b) {
  if (!same_list_lengths(a, b))
    throw value_error("cannot broadcast nested list (jetfuse: x(mask) with a mask of " + std::to_string(b.size() - 1) +
                      " lists of other lengths than x's " + std::to_string(a.size() - 1) + ")");
}

namespace {
// Awkward's validity rules for offsets into a content of `len` items (elements or inner lists).
void check_offsets(const array_base& offsets, std::int64_t len) {
  if (offsets.size() == 0) throw value_error("ListOffsetArray len(offsets) (0) must be >= 1");  // Awkward's words
  const std::vector<std::int64_t> off = host_offsets(offsets);
  // Awkward's awkward_ListArray_validity messages, list i spanning [start[i], stop[i]).
  // The message is built only for a failing list (building it for every list was most of the
  // check's time).
  const auto at = [&](std::size_t i) {
    return " at i=" + std::to_string(i) + " (offsets[" + std::to_string(i) + "] = " + std::to_string(off[i]) +
           ", offsets[" + std::to_string(i + 1) + "] = " + std::to_string(off[i + 1]) +
           ", len(content) = " + std::to_string(len) + ")";
  };
  std::int64_t longest = 0;
  for (std::size_t i = 0; i + 1 < off.size(); ++i) {
    if (off[i] <= off[i + 1] && off[i] >= 0 && off[i + 1] <= len) [[likely]] {
      longest = std::max(longest, off[i + 1] - off[i]);
      continue;
    }
    if (off[i] > off[i + 1]) throw value_error("jf::jagged: start[i] > stop[i]" + at(i));
    if (off[i] < 0) throw value_error("jf::jagged: start[i] < 0" + at(i));
    throw value_error("jf::jagged: stop[i] > len(content)" + at(i));
  }
  // Only reached with zero lists (Awkward checks nothing then): the one offset must lie in the content.
  if (off.front() < 0) throw value_error("jf::jagged: offsets[0] = " + std::to_string(off.front()) + " < 0");
  if (off.back() > len)
    throw value_error("jf::jagged: offsets[-1] = " + std::to_string(off.back()) +
                      " > len(content) = " + std::to_string(len));
  remember_offsets_bounds(offsets, off.front(), off.back(), longest);
}

void check_offsets_array(const array_base& offsets) {
  require_not_null(offsets, "offsets");
  if (offsets.dtype() != dtype::int64 && offsets.dtype() != dtype::int32)
    throw dtype_error("jf::jagged: offsets must be int64 or int32, not " + std::string(name(offsets.dtype())));
  if (offsets.ndim() != 1)
    throw value_error("jf::jagged: offsets must be 1-dimensional, not of shape " + to_string(offsets.shape()));
}
}  // namespace

void check_jagged(const array_base& offsets, const array_base& content) {
  check_offsets_array(offsets);
  require_not_null(content, "content");
  if (content.ndim() != 1)
    throw value_error("jf::jagged: the content must be 1-dimensional in this version, not of shape " +
                      to_string(content.shape()));
  if (offsets.device() != content.device())
    throw backend_mismatch("jf::jagged: the offsets are on " + to_string(offsets.device()) + " and the content on " +
                           to_string(content.device()) + "; move them with jf::to_backend");
  check_offsets(offsets, content.size());
}

void check_nested(const array_base& offsets, std::int64_t inner_lists, device inner_device) {
  check_offsets_array(offsets);
  if (offsets.device() != inner_device)
    throw backend_mismatch("jf::jagged: the offsets are on " + to_string(offsets.device()) +
                           " and the inner lists on " + to_string(inner_device) + "; move them with jf::to_backend");
  check_offsets(offsets, inner_lists);
}

std::pair<std::int64_t, std::int64_t> offsets_range(const array_base& offsets) { return offsets_bounds(offsets); }

array_base used_lists(const array_base& outer, const array_base& inner_offsets) {
  const auto [first, last] = offsets_bounds(outer);
  const index_arg arg(range(first, last + 1));
  array_base v = slice(inner_offsets, &arg, 1);
  remember_offsets_longest(v, offsets_longest(inner_offsets));
  // Its bounds are the inner offsets' at first and last: read once here if not known.
  (void)offsets_bounds(v);
  return v;
}

array_base rebased_offsets(const array_base& offsets) {
  const auto [first, last] = offsets_bounds(offsets);
  if (first == 0) return offsets;
  std::vector<std::int64_t> host = host_offsets(offsets);
  for (auto& x : host) x -= first;
  array_base r = make_from_host(offsets.device(), dtype::int64, shape_t{offsets.size()}, host.data());
  remember_offsets_bounds(r, 0, last - first, offsets_longest(offsets));
  remember_same_list_lengths(r, offsets);
  return r;
}

void remember_widened_offsets(const array_base& wide, const array_base& narrow) {
  const auto [first, last] = offsets_bounds(narrow);
  remember_offsets_bounds(wide, first, last, offsets_longest(narrow));
  remember_same_list_lengths(wide, narrow);
}

array_base offsets_of_sizes(const std::vector<std::int64_t>& sizes, device dev) {
  std::vector<std::int64_t> off(sizes.size() + 1, 0);
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    off[i + 1] = off[i] + sizes[i];
    longest = std::max(longest, sizes[i]);
  }
  array_base a = make_from_host(dev, dtype::int64, shape_t{static_cast<std::int64_t>(off.size())}, off.data());
  remember_offsets_bounds(a, off.front(), off.back(), longest);
  return a;
}

std::vector<std::int64_t> host_offsets(const array_base& offsets) {
  std::vector<std::int64_t> off(static_cast<std::size_t>(offsets.size()));
  if (offsets.dtype() == dtype::int32) {
    std::vector<std::int32_t> narrow(off.size());
    offsets.read_into(narrow.data());
    std::copy(narrow.begin(), narrow.end(), off.begin());
  } else {
    offsets.read_into(off.data());
  }
  return off;
}

array_base slice_offsets(const array_base& offsets, const range& r) {
  if (r.step != 1)
    throw value_error(
        "jf::jagged: slices with a step other than 1 are not supported yet (they are not a view of "
        "the offsets); got step " +
        std::to_string(r.step));
  const std::int64_t n = offsets.size() - 1;
  // Python's slice.indices for step 1: negative bounds count from the end, then clip to [0, n].
  const auto clip = [n](std::int64_t b) { return std::clamp(b < 0 ? b + n : b, std::int64_t{0}, n); };
  const std::int64_t start = clip(r.start.value_or(0));
  const std::int64_t stop = std::max(start, clip(r.stop.value_or(n)));
  const index_arg arg(range(start, stop + 1));
  array_base v = slice(offsets, &arg, 1);
  remember_offsets_longest(v, offsets_longest(offsets));  // (no list of a slice is longer)
  return v;
}

array_base flatten_content(const array_base& offsets, const array_base& content) {
  const std::int64_t first = read_offset(offsets, 0);
  const std::int64_t last = read_offset(offsets, offsets.size() - 1);
  const index_arg arg(range(first, last));
  return slice(content, &arg, 1);
}

std::string jagged_type_string(std::int64_t n, dtype content_dtype, int depth) {
  std::string t = std::to_string(n) + " * ";
  for (int d = 0; d < depth; ++d) t += "var * ";
  return t + std::string(name(content_dtype));
}

void check_unflatten(const array_base& content, const array_base& counts) {
  if (content.is_null() || counts.is_null())
    throw value_error("jf::unflatten: an operand is a null handle (default-constructed)");
  if (counts.ndim() != 1) throw value_error("counts must be an integer or a one-dimensional array of integers");
  if (content.ndim() != 1)
    throw value_error("jf::unflatten: the content must be 1-dimensional in this version, not of shape " +
                      to_string(content.shape()));
  if (content.device() != counts.device())
    throw backend_mismatch("jf::unflatten: the content is on " + to_string(content.device()) + " and the counts on " +
                           to_string(counts.device()) + "; move them with jf::to_backend");
}

void throw_unflatten_mismatch(std::int64_t total, std::int64_t length) {
  throw value_error(
      "structure imposed by 'counts' does not fit in the array or partition at axis=0 (the counts add "
      "up to " +
      std::to_string(total) + ", the content has " + std::to_string(length) + " elements)");
}

void throw_negative_count(std::int64_t lowest) {
  throw value_error("jf::unflatten: counts must not be negative (the offsets would decrease); the smallest is " +
                    std::to_string(lowest));
}

void throw_num_axis(int axis, int depth) {
  throw axis_error("axis=" + std::to_string(axis) + " exceeds the depth of this array (" + std::to_string(depth) +
                   ")");  // Awkward's words
}

}  // namespace jf::detail
