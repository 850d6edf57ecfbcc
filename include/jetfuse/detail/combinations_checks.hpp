// The untyped checks and errors of jf::combinations, jf::cartesian and jf::unzip, defined in
// src/core/combinations.cpp: declared apart from the front end so that the library's file does
// not include it.
#pragma once

#include <cstddef>

#include "jetfuse/array.hpp"

namespace jf::detail {

// Awkward's n of ak.combinations: 2 or 3 (value_error otherwise).
void check_combinations_arity(int n);
// Fields of combinations of another n in one expression: Awkward's broadcasting error.
void check_same_arity(int arity, int field_arity);
// jf::unzip<wanted> of n-slot tuples.
[[noreturn]] void throw_unzip_arity(int n, std::size_t wanted);
// jf::cartesian's operands: one backend, the same number of lists.
void check_cartesian_operands(const array_base& offsets_a, const array_base& offsets_b);

}  // namespace jf::detail
