// The C++ side of the differential fuzzer (tests/fuzz/README.md): the generated cases call this.
// A case is a function that builds its leaves from the context, evaluates one expression with
// jetfuse and hands the result back; the harness runs it on every variant and backend and writes
// what came out (dtype, shape, bytes, and every input buffer afterwards) for fuzz.py to compare.
#pragma once

#include <cstdint>
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "harness_io.hpp"

namespace jf_fuzz {

// One numpy basic-indexing argument of a leaf view: an integer or start:stop:step.
struct slice_arg {
  bool is_index = false;
  std::int64_t index = 0;
  jf::range r{};
};

struct leaf_spec {
  int base = 0;
  std::vector<slice_arg> slices;  // empty: the whole base
  bool transposed = false;
  jf::shape_t axes;
};

// How the expression is evaluated: on which backend, fused or one kernel per operation.
struct mode {
  const char* name;
  jf::device dev;
  bool unfused;
};

class ctx {
 public:
  ctx(const mode& m, std::vector<jf::array_base> bases, const std::vector<leaf_spec>& leaves)
      : mode_(m), bases_(std::move(bases)), leaves_(leaves) {}

  // Leaf i: a view (or the whole) of its base buffer, on the mode's backend.
  template <class T>
  jf::array<T> leaf(int i) const {
    return jf::array<T>(view(i));
  }

  // jf::eval(e...), or jf::eval(jf::unfused, e...) in the unfused mode.
  template <class... E>
  auto eval(const E&... e) const {
    return mode_.unfused ? jf::eval(jf::unfused, e...) : jf::eval(e...);
  }

  template <class T>
  void result(const jf::array<T>& r) {
    result_ = r;
  }
  // The two outputs of jf::eval(e1, e2).
  template <class A, class B>
  void result(const std::tuple<A, B>& r) {
    result_ = std::get<0>(r);
    second_ = std::get<1>(r);
  }

  const jf::array_base& second() const { return second_; }
  const jf::array_base& result() const { return result_; }
  const std::vector<jf::array_base>& bases() const { return bases_; }

 private:
  jf::array_base view(int i) const;

  mode mode_;
  std::vector<jf::array_base> bases_;
  const std::vector<leaf_spec>& leaves_;
  jf::array_base result_, second_;
};

// A generated case ({name case_<seed>_<index>, function, its C++ statement}) and what registers
// a translation unit's cases at start-up.
using case_entry = jf_fuzz_io::case_entry<ctx>;
using registrar = jf_fuzz_io::registrar<ctx>;

}  // namespace jf_fuzz
