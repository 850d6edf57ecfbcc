// jf::jagged_record's class and its untyped functions, without jf::jagged's definition (the front
// end): what src/core/record.cpp and jagged_dlpack.cpp compile against. Users include
// jetfuse/record.hpp, which also defines the typed conversions (jagged_field::as<T>, ev.field<T>).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/jagged_access.hpp"
#include "jetfuse/detail/jagged_layout.hpp"

namespace jf {

// One field of a record, untyped: what ev["name"] gives. Converts to jf::jagged<T> (dtype_error
// when T is not the field's dtype).
struct jagged_field {
  std::string name;
  array<std::int64_t> offsets;
  array_base content;

  jf::dtype dtype() const { return content.dtype(); }
  template <class T>
  jagged<T> as() const;
  template <class T>
  operator jagged<T>() const {
    return as<T>();
  }
};

// A named jagged array for jf::zip: {"pt", pt}.
struct zip_field {
  std::string name;
  array<std::int64_t> offsets;
  array_base content;
  template <class T>
  zip_field(std::string n, const jagged<T>& x) : name(std::move(n)), offsets(x.offsets()), content(x.content()) {}
};

class jagged_record;
namespace detail {
// src/core/record.cpp.
jagged_record zip(const std::vector<zip_field>& fields);
[[noreturn]] void throw_field_dtype(const std::string& name, dtype have, dtype want);
}  // namespace detail

class jagged_record {
 public:
  // Offsets shared by every field; the fields' contents in order (checked by jf::zip).
  jagged_record(array<std::int64_t> offsets, std::vector<std::pair<std::string, array_base>> fields)
      : offsets_(std::move(offsets)), fields_(std::move(fields)) {}

  const array<std::int64_t>& offsets() const { return offsets_; }
  std::int64_t size() const { return offsets_.size() - 1; }  // the number of lists
  device backend() const { return offsets_.device(); }
  // The field names, in order (ak.fields).
  std::vector<std::string> fields() const {
    std::vector<std::string> out;
    for (const auto& f : fields_) out.push_back(f.first);
    return out;
  }
  const std::vector<std::pair<std::string, array_base>>& contents() const { return fields_; }

  // ev["pt"]: Awkward's FieldNotFoundError (an IndexError: jf::index_error) for an unknown name.
  jagged_field operator[](const std::string& name) const { return {name, offsets_, content_of(name)}; }
  template <class T>
  jagged<T> field(const std::string& name) const {
    return (*this)[name].template as<T>();
  }

  // x[start:stop] of the lists (a view, as jf::jagged's).
  jagged_record operator()(range r) const {
    return jagged_record(array<std::int64_t>(detail::slice_offsets(offsets_, r)), fields_);
  }

 private:
  const array_base& content_of(const std::string& name) const;

  array<std::int64_t> offsets_;
  std::vector<std::pair<std::string, array_base>> fields_;
};

// ak.zip({"pt": pt, "eta": eta, ...}) of jagged arrays with the same lists: one offsets array
// (the first field's when all are the same buffer or equal by value; rebased to start at 0 when
// only the counts agree, the contents then views of their used range). Awkward's ValueError
// "cannot broadcast nested list" when the lists differ; value_error for no fields or a repeated
// name; jf::backend_mismatch across backends.
inline jagged_record zip(std::initializer_list<zip_field> fields) {
  return detail::zip(std::vector<zip_field>(fields));
}
inline jagged_record zip(const std::vector<zip_field>& fields) { return detail::zip(fields); }

inline device backend(const jagged_record& x) { return x.backend(); }
// Every field and the offsets moved to dev.
jagged_record to_backend(const jagged_record& x, device dev);
// Awkward's type string: "3 * var * {pt: float32, charge: int32}".
std::string type_string(const jagged_record& x);

}  // namespace jf
