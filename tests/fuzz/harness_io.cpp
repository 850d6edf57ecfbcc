#include "harness_io.hpp"

#include <sstream>
#include <typeinfo>

namespace jf_fuzz_io {

std::uint64_t fnv1a(const char* s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001b3ull;
  return h;
}

jf::dtype parse_dtype(const std::string& s, const char* who) {
  for (jf::dtype d : jf::all_dtypes)
    if (jf::name(d) == s) return d;
  throw std::runtime_error(std::string(who) + ": unknown dtype " + s);
}

std::vector<unsigned char> from_hex(const std::string& s) {
  std::vector<unsigned char> out;
  if (s == "-") return out;
  out.resize(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<unsigned char>(std::stoi(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::string to_hex(const std::vector<unsigned char>& v) {
  if (v.empty()) return "-";
  static const char* digits = "0123456789abcdef";
  std::string s(2 * v.size(), '0');
  for (std::size_t i = 0; i < v.size(); ++i) {
    s[2 * i] = digits[v[i] >> 4];
    s[2 * i + 1] = digits[v[i] & 15];
  }
  return s;
}

std::vector<unsigned char> bytes_of(const jf::array_base& a) {
  std::vector<unsigned char> v(static_cast<std::size_t>(a.size()) * static_cast<std::size_t>(jf::size_of(a.dtype())));
  if (!v.empty()) a.read_into(v.data());
  return v;
}

std::string hex_of(const jf::array_base& a) { return to_hex(bytes_of(a)); }

std::string shape_text(const jf::array_base& a) {
  std::ostringstream s;
  s << jf::name(a.dtype()) << ' ' << a.ndim();
  for (int k = 0; k < a.ndim(); ++k) s << ' ' << a.shape()[k];
  return s.str();
}

jf::array_base make_array(jf::dtype d, const std::vector<unsigned char>& bytes, const jf::shape_t& shape,
                          jf::device dev) {
  return jf::visit_dtype(d, [&](auto t) -> jf::array_base {
    using T = typename decltype(t)::type;
    alignas(8) static const unsigned char none[8] = {};  // an empty buffer still needs a valid host pointer
    const void* host = bytes.empty() ? none : bytes.data();
    return jf::array<T>(static_cast<const T*>(host), shape, dev);
  });
}

std::string error_kind(const std::exception& e) {
  if (dynamic_cast<const jf::shape_error*>(&e)) return "shape_error";
  if (dynamic_cast<const jf::dtype_error*>(&e)) return "dtype_error";
  if (dynamic_cast<const jf::axis_error*>(&e)) return "axis_error";  // a value_error
  if (dynamic_cast<const jf::value_error*>(&e)) return "value_error";
  if (dynamic_cast<const jf::index_error*>(&e)) return "index_error";
  if (dynamic_cast<const jf::backend_mismatch*>(&e)) return "backend_mismatch";
  if (dynamic_cast<const jf::no_device*>(&e)) return "no_device";
  if (dynamic_cast<const jf::cuda_error*>(&e)) return "cuda_error";
  if (dynamic_cast<const jf::out_of_memory*>(&e)) return "out_of_memory";
  if (dynamic_cast<const jf::compile_error*>(&e)) return "compile_error";
  if (dynamic_cast<const jf::error*>(&e)) return "error";
  return std::string("std:") + typeid(e).name();
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

}  // namespace jf_fuzz_io
