// DLPack for jagged arrays and records (jetfuse/jagged_dlpack.hpp): the offsets and contents
// imported together — all checked before any is accepted — and exported together.
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "core/dlpack_armed.hpp"
#include "jetfuse/detail/jagged_dlpack_untyped.hpp"

namespace jf {

namespace {

// The tensors' own checks happen in from_dlpack_armed; these are the list layout's.
template <class M>
std::pair<array<std::int64_t>, std::vector<array_base>> import_lists(M* offsets, const std::vector<M*>& contents,
                                                                     const dtype* expected,
                                                                     dlpack_read_only read_only) {
  // Nothing is accepted until every check passed: a throw before `*armed = true` leaves each
  // tensor with its producer (the wrapping buffers then release without calling a deleter).
  auto armed = std::make_shared<bool>(false);
  auto take = [&](M* t, const char* what) {
    if (t == nullptr) throw value_error(std::string("jf::jagged_from_dlpack: a NULL ") + what + " tensor");
    if constexpr (std::is_same_v<M, DLManagedTensor>) {
      (void)read_only;
      return detail::from_dlpack_armed(t, armed);
    } else {
      return detail::from_dlpack_armed(t, read_only, armed);
    }
  };
  array_base off = take(offsets, "offsets");
  if (off.dtype() != dtype::int64 && off.dtype() != dtype::int32)
    throw dtype_error("jf::jagged_from_dlpack: offsets must be int64 or int32, not " + std::string(name(off.dtype())));
  if (off.ndim() != 1)
    throw value_error("jf::jagged_from_dlpack: offsets must be 1-dimensional, not of shape " + to_string(off.shape()));
  std::vector<array_base> out;
  out.reserve(contents.size());
  for (M* t : contents) {
    array_base c = take(t, "content");
    if (expected && c.dtype() != *expected)
      throw dtype_error("jf::jagged_from_dlpack: the content holds " + std::string(name(c.dtype())) + ", not " +
                        std::string(name(*expected)));
    out.push_back(std::move(c));
  }
  const array_base taken_offsets = off;  // kept until armed: its release then calls the deleter
  if (off.dtype() == dtype::int32) {
    // Awkward's Index32: widened on the host (the validity check reads the offsets there anyway).
    std::vector<std::int32_t> narrow(static_cast<std::size_t>(off.size()));
    off.read_into(narrow.data());
    const std::vector<std::int64_t> wide(narrow.begin(), narrow.end());
    off = detail::make_from_host(off.device(), dtype::int64, off.shape(), wide.data());
  }
  for (const array_base& c : out) detail::check_jagged(off, c);  // devices, ranks, Awkward's validity
  *armed = true;
  return {array<std::int64_t>(std::move(off)), std::move(out)};
}

template <class M>
jagged_record import_record(const dlpack_record_t<M>& r, dlpack_read_only read_only) {
  if (r.fields.empty()) throw value_error("jf::record_from_dlpack: a record needs at least one field");
  std::set<std::string> names;
  std::vector<M*> contents;
  for (const auto& [n, t] : r.fields) {
    if (!names.insert(n).second) throw value_error("jf::record_from_dlpack: the field name '" + n + "' is repeated");
    contents.push_back(t);
  }
  auto [off, c] = import_lists(r.offsets, contents, nullptr, read_only);
  std::vector<std::pair<std::string, array_base>> fields;
  for (std::size_t i = 0; i < c.size(); ++i) fields.emplace_back(r.fields[i].first, std::move(c[i]));
  return jagged_record(std::move(off), std::move(fields));
}

template <class M, class Export>
std::vector<M*> export_all(const std::vector<array_base>& arrays, Export one) {
  std::vector<M*> out;
  try {
    for (const array_base& a : arrays) out.push_back(one(a));
  } catch (...) {
    for (M* m : out) m->deleter(m);
    throw;
  }
  return out;
}

template <class R>
R export_record(const jagged_record& x, auto export_lists) {
  std::vector<array_base> arrays{x.offsets()};
  for (const auto& f : x.contents()) arrays.push_back(f.second);
  const auto t = export_lists(arrays);
  R r;
  r.offsets = t[0];
  for (std::size_t i = 0; i < x.contents().size(); ++i) r.fields.emplace_back(x.contents()[i].first, t[i + 1]);
  return r;
}

}  // namespace

namespace detail {

std::pair<array<std::int64_t>, std::vector<array_base>> lists_from_dlpack(DLManagedTensor* offsets,
                                                                          const std::vector<DLManagedTensor*>& contents,
                                                                          const dtype* expected) {
  return import_lists(offsets, contents, expected, dlpack_read_only::reject);
}
std::pair<array<std::int64_t>, std::vector<array_base>> lists_from_dlpack(
    DLManagedTensorVersioned* offsets, const std::vector<DLManagedTensorVersioned*>& contents, const dtype* expected,
    dlpack_read_only read_only) {
  return import_lists(offsets, contents, expected, read_only);
}
jagged_record record_from_dlpack(const dlpack_record& r) { return import_record(r, dlpack_read_only::reject); }
jagged_record record_from_dlpack(const dlpack_record_versioned& r, dlpack_read_only read_only) {
  return import_record(r, read_only);
}

std::vector<DLManagedTensor*> lists_to_dlpack(const std::vector<array_base>& arrays) {
  return export_all<DLManagedTensor>(arrays, [](const array_base& a) { return to_dlpack(a); });
}
std::vector<DLManagedTensorVersioned*> lists_to_dlpack_versioned(const std::vector<array_base>& arrays) {
  return export_all<DLManagedTensorVersioned>(arrays, [](const array_base& a) { return to_dlpack_versioned(a); });
}

}  // namespace detail

dlpack_record to_dlpack(const jagged_record& x) {
  return export_record<dlpack_record>(x, [](const auto& a) { return detail::lists_to_dlpack(a); });
}
dlpack_record_versioned to_dlpack_versioned(const jagged_record& x) {
  return export_record<dlpack_record_versioned>(x, [](const auto& a) { return detail::lists_to_dlpack_versioned(a); });
}

}  // namespace jf
