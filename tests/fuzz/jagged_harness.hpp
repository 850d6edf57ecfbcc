// The C++ side of the jagged fuzzer (tests/fuzz/README.md, "Jagged expressions"): generated cases
// build their jagged and per-list leaves from the context, evaluate one expression and hand the
// result (a jf::jagged, a jf::option_array or a jf::array) back; the runner writes it for
// jagged_fuzz.py to compare with Awkward's answer.
#pragma once

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

#include "harness_io.hpp"

namespace jf_jfuzz {

// A jagged leaf as the variant gives it: its own offsets and content (or the offsets array of an
// earlier leaf: the same buffer), then optionally the view of lists [start, stop).
struct jagged_spec {
  jf::dtype dtype;
  std::vector<unsigned char> offsets, content;
  int share = -1;                  // >= 0: reuse that leaf's offsets array (identity)
  std::int64_t start = -1, stop = -1;  // start >= 0: x(jf::range(start, stop))
};

struct list_value_spec {
  jf::dtype dtype;
  std::vector<unsigned char> data;
};

class ctx {
 public:
  ctx(jf::device dev, const std::vector<jagged_spec>& j, const std::vector<list_value_spec>& d);

  // Jagged leaf i and per-list (dense, one value a list) leaf i, on the run's backend.
  template <class T> jf::jagged<T> jag(int i) const {
    const std::size_t k = static_cast<std::size_t>(i);
    const jf::jagged<T> whole(offsets_.at(k), jf::array<T>(contents_.at(k)));
    return start_[k] >= 0 ? whole(jf::range(start_[k], stop_[k])) : whole;
  }
  template <class T> jf::array<T> per_list(int i) const { return jf::array<T>(dense_.at(static_cast<std::size_t>(i))); }

  template <class T> void result(const jf::jagged<T>& r) { set_jagged(r.offsets(), r.content()); }
  template <class T> void result(const jf::option_array<T>& r) { set_option(r.values(), r.valid()); }
  template <class T> void result(const jf::array<T>& r) { set_dense(r); }

  std::string text;  // the "ok ..." line

 private:
  void set_jagged(const jf::array<std::int64_t>& offsets, const jf::array_base& content);
  void set_option(const jf::array_base& values, const jf::array<bool>& valid);
  void set_dense(const jf::array_base& values);

  std::vector<jf::array<std::int64_t>> offsets_;
  std::vector<jf::array_base> contents_, dense_;
  std::vector<std::int64_t> start_, stop_;
};

// A generated case ({name jcase_<seed>_<index>, function, its C++ body}) and what registers a
// translation unit's cases at start-up.
using case_entry = jf_fuzz_io::case_entry<ctx>;
using registrar = jf_fuzz_io::registrar<ctx>;

}  // namespace jf_jfuzz
