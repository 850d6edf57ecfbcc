// The registry of user-defined element functions (jf::elementwise): what the lowering, the code
// generator (the CUDA body) and the CPU executor (the host callable) need, by id. No YAP here.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "jetfuse/dtype.hpp"

namespace jf::detail {

struct user_function {
  std::string name;  // an identifier: the kernels' function is jf_udf_<id>_<name>
  std::string body;  // CUDA C++ statements over the parameters x, y, z; returns the result
  dtype result = dtype::float64;
  std::array<dtype, 3> params{};
  int arity = 0;
  // The CPU reference: n results from n elements of each argument (typed columns).
  std::function<void(const void* const* args, void* out, std::int64_t n)> cpu;
};

// Checks the name (value_error: not an identifier) and the arity (1 to 3), stores f for the life
// of the process and returns its id (ids are never reused: kernels are cached by them).
std::int64_t register_user_function(user_function f);
// The function of an id (jf::error for an unknown one).
const user_function& user_function_at(std::int64_t id);

}  // namespace jf::detail
