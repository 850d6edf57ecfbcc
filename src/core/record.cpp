// jf::zip and jf::jagged_record's untyped work (jetfuse/record.hpp): which offsets the fields
// share (identity, else equal values read back once, else equal counts), Awkward's errors, moving
// between backends and the type string.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/detail/awkward_print.hpp"
#include "jetfuse/detail/jagged_record_class.hpp"
#include "jetfuse/errors.hpp"

namespace jf {

namespace {

// The same elements of the same memory: no need to read anything.
bool same_view(const array_base& a, const array_base& b) {
  return a.buffer() == b.buffer() && a.offset() == b.offset() && a.shape() == b.shape() && a.strides() == b.strides();
}

}  // namespace

namespace detail {

jagged_record zip(const std::vector<zip_field>& fields) {
  if (fields.empty()) throw value_error("jf::zip needs at least one field");
  std::set<std::string> names;
  for (const auto& f : fields) {
    if (f.offsets.is_null() || f.content.is_null())
      throw value_error("jf::zip: field '" + f.name + "' is a null handle (default-constructed)");
    if (!names.insert(f.name).second) throw value_error("jf::zip: the field name '" + f.name + "' is repeated");
    if (f.offsets.device() != fields[0].offsets.device())
      throw backend_mismatch("jf::zip: field '" + fields[0].name + "' is on " + to_string(fields[0].offsets.device()) +
                             " and field '" + f.name + "' on " + to_string(f.offsets.device()) +
                             "; move them with jf::to_backend");
  }
  const array<std::int64_t>& first = fields[0].offsets;
  bool shared = true;
  std::vector<std::int64_t> first_values;  // read once, only when some field's offsets are another view
  for (std::size_t i = 1; i < fields.size() && shared; ++i) {
    if (same_view(first, fields[i].offsets)) continue;
    if (first.size() != fields[i].offsets.size()) throw value_error("cannot broadcast nested list");  // Awkward's words
    if (first_values.empty()) first_values = host_offsets(first);
    shared = host_offsets(fields[i].offsets) == first_values;
  }
  std::vector<std::pair<std::string, array_base>> contents;
  if (shared) {
    for (const auto& f : fields) contents.emplace_back(f.name, f.content);
    return jagged_record(first, std::move(contents));
  }
  // Only the counts may agree: offsets rebased to 0, every content the view of its used range.
  const auto rebase = [](std::vector<std::int64_t> off) {
    const std::int64_t base = off.front();
    for (auto& v : off) v -= base;
    return off;
  };
  const std::vector<std::int64_t> rebased = rebase(first_values);
  for (const auto& f : fields) {
    const std::vector<std::int64_t> off = rebase(host_offsets(f.offsets));
    if (off != rebased) throw value_error("cannot broadcast nested list");
    contents.emplace_back(f.name, flatten_content(f.offsets, f.content));
  }
  const device dev = first.device();
  return jagged_record(array<std::int64_t>(make_from_host(
                           dev, dtype::int64, shape_t{static_cast<std::int64_t>(rebased.size())}, rebased.data())),
                       std::move(contents));
}

void throw_field_dtype(const std::string& name, dtype have, dtype want) {
  throw dtype_error("jf::jagged_record: field '" + name + "' is " + std::string(jf::name(have)) + ", not " +
                    std::string(jf::name(want)));
}

}  // namespace detail

const array_base& jagged_record::content_of(const std::string& name) const {
  for (const auto& f : fields_)
    if (f.first == name) return f.second;
  throw index_error("no field '" + name + "' in record with " + std::to_string(fields_.size()) +
                    " fields");  // Awkward's FieldNotFoundError
}

jagged_record to_backend(const jagged_record& x, device dev) {
  std::vector<std::pair<std::string, array_base>> fields;
  for (const auto& [name, content] : x.contents()) fields.emplace_back(name, detail::to_backend(content, dev));
  return jagged_record(array<std::int64_t>(detail::to_backend(x.offsets(), dev)), std::move(fields));
}

std::string type_string(const jagged_record& x) {
  std::vector<std::pair<std::string, std::string>> f;
  for (const auto& [name, content] : x.contents()) f.emplace_back(name, std::string(jf::name(content.dtype())));
  return std::to_string(x.size()) + " * var * " + detail::record_type_string(f, true);
}

}  // namespace jf
