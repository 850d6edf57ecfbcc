// The untyped part of Awkward Array's printing (src/core/awkward_repr.cpp): a host tree of the
// shown window of a value (the first and last few lists, the first and last few elements of each,
// already formatted as Awkward formats numbers) and a port of awkward/prettyprint.py (2.14) that
// walks it: str(), repr(), show() and the Jupyter view. The typed gathering is in
// jetfuse/awkward_print.hpp. No YAP here.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/device.hpp"
#include "jetfuse/dtype.hpp"

namespace jf::detail {

// How many items of a list the printer may look at from each end. Awkward's walk alternates
// front and back and stops at the first item that does not fit in the columns left; every
// item after the first costs at least 3 columns (", " + one character), so 80 columns look at
// no more than 27 items in all, 20 rows at no more than 20 (prettyprint.py). 48 is safely above.
inline constexpr std::int64_t print_edge = 48;

// A value of the shown window: a formatted number or None, a list of which only the first
// `front` and the last items.size() - front items are present, a record's fields, or a tuple's
// (fields without names, printed "(a, b)": what ak.combinations gives).
struct pp_item {
  enum class kind { scalar, list, record, tuple };
  kind k = kind::scalar;
  std::string text;                                     // scalar: "1.1", "None", "True"
  std::int64_t length = 0;                              // list: its true length
  std::int64_t front = 0;                               // list: items [0, front) present, then the back ones
  std::vector<pp_item> items;                           // list: the present items, front then back
  std::vector<std::pair<std::string, pp_item>> fields;  // record: name and value, in order

  static pp_item scalar(std::string t) { return pp_item{kind::scalar, std::move(t), 0, 0, {}, {}}; }
  // Item i of a list (0 <= i < length); logic_error when it is not in the window.
  const pp_item& at(std::int64_t i) const;
};

// The positions of a list of n items that the window holds: [0, min(n, edge)) then
// [max(that, n - edge), n).
std::vector<std::int64_t> window_positions(std::int64_t n, std::int64_t edge = print_edge);
// A list item of the given length whose present items (in window_positions order) are `items`.
pp_item window_list(std::int64_t length, std::vector<pp_item> items, std::int64_t edge = print_edge);

// Awkward's number formatting: f"{v:.3g}" for floats, str() for integers and bools.
std::string awkward_number(double v);
std::string awkward_number(float v);
std::string awkward_number(std::int64_t v);
std::string awkward_number(std::int32_t v);
std::string awkward_number(std::int16_t v);
std::string awkward_number(std::int8_t v);
std::string awkward_number(std::uint64_t v);
std::string awkward_number(std::uint32_t v);
std::string awkward_number(std::uint16_t v);
std::string awkward_number(std::uint8_t v);
std::string awkward_number(bool v);
// One item per element of dtype t at `elements` (n of them, as stored).
std::vector<pp_item> awkward_numbers(dtype t, const void* elements, std::size_t n);

// str(ak.Array): prettyprint.valuestr(x, 1, 80).
std::string awkward_str(const pp_item& top);
// prettyprint.valuestr(x, limit_rows, limit_cols).
std::string awkward_valuestr(const pp_item& top, int limit_rows, int limit_cols);
// repr(ak.Array): "<Array [...] type='...'>" in 80 columns.
std::string awkward_repr(const pp_item& top, const std::string& type_compact);
// What Awkward's show() writes (without the final newline): "type: ..." (the type's multi-line
// form), then "backend: ..." / "nbytes: ..." (shortest prefix first), then the value rows.
struct show_options {
  int limit_rows = 20, limit_cols = 80;
  bool type = false, nbytes = false, backend = false;
};
std::string awkward_show(const pp_item& top, const std::string& type_multiline, std::int64_t nbytes, device dev,
                         const show_options& o);
// The text of Awkward's Jupyter view (_repr_mimebundle_'s HTML body, unescaped): the value in
// 20 rows, a rule of dashes as wide as its widest row, backend, nbytes and the type.
std::string awkward_display(const pp_item& top, const std::string& type_multiline, std::int64_t nbytes, device dev);
// Awkward's backend names: "cpu", "cuda".
std::string awkward_backend_name(device dev);

// Awkward's record type, compact ("{pt: float32, charge: int32}") or as Type.show() writes it
// (one field a line, indented by four more spaces than `indent`); a field name that is not an
// identifier is written as a JSON string.
std::string record_type_string(const std::vector<std::pair<std::string, std::string>>& fields, bool compact,
                               const std::string& indent = "");

// One slot of a tuple type: a dtype's name, or a record's fields (name, dtype name).
struct slot_type {
  std::string dtype;
  std::vector<std::pair<std::string, std::string>> fields;
  bool record = false;
};
// Awkward's tuple type, compact ("(float64, {pt: float32})") or as Type.show() writes it (one slot
// a line, indented by four more spaces than `indent`; a record slot's fields by eight).
std::string tuple_type_string(const std::vector<slot_type>& slots, bool compact, const std::string& indent = "");

}  // namespace jf::detail
