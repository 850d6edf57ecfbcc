// Internal to the code generator: the pieces the map kernel (cuda_codegen.cpp) and the loop-nest
// shapes (nest_emitter.cpp, shape_*.cpp) share.
#pragma once

#include <string>
#include <string_view>

#include "jetfuse/ir/codegen.hpp"

namespace jf::ir::codegen_detail {

// jf_<opcode>: the scalar function of an element-wise operation in scalar_ops.hpp.
std::string_view function_name(op o);
// What a kernel calls for element-wise node n: jf::ops::jf_<opcode>, or jf_udf_<id>_<name> for a
// user function (op::user).
std::string call_name(const node& n);
// The definitions of the user functions a graph calls (guarded: a translation unit may hold several
// kernels).
std::string user_functions(const graph& g);
// An exact C++ literal of a constant of dtype t.
std::string literal(dtype t, const scalar_value& v);
// A deterministic kernel name from the graph's structure ("jf_<hash>_<ops>").
std::string kernel_name(const graph& g, const codegen_options& opt);

// Loop-nest graphs (nest_emitter.cpp): recognises the kernel shape and generates its kernel.
kernel_source generate_nest(const graph& g, const codegen_options& opt);

}  // namespace jf::ir::codegen_detail
