// The untyped checks and errors of jf::jagged's structure functions (jagged_structure.hpp),
// defined in src/core/jagged_structure.cpp: declared apart from the front end so that the
// library's file does not include it.
#pragma once

#include <cstdint>

#include "jetfuse/array.hpp"

namespace jf::detail {

// Awkward's IndexError of x[:, k] when a list has no element k.
[[noreturn]] void throw_list_index(std::int64_t n, std::int64_t k);
// Awkward's IndexError of x[lists] for the first out-of-range position (reads `lists` back).
[[noreturn]] void throw_list_positions(const array_base& lists, std::int64_t n);
// x[lists] / x[mask]: 1-d, one backend, a mask of n entries (numpy's IndexError otherwise).
void check_list_selection(const array_base& sel, std::int64_t n, device dev, bool is_mask);
// ak.concatenate(axis=1): the same number of lists on one backend.
void check_concatenate(std::int64_t na, std::int64_t nb, device da, device db);

}  // namespace jf::detail
