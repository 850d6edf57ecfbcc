// CUDA C++ generation from a jf::ir::graph (src/codegen/cuda_codegen.cpp).
#pragma once

#include <string>
#include <string_view>

#include "jetfuse/ir/graph.hpp"

namespace jf::ir {

struct codegen_options {
  bool fast_math = false;
};

struct kernel_source {
  std::string name;    // the __global__ function's name (extern "C")
  std::string source;  // a complete NVRTC translation unit: prelude + kernel
};

// Readable CUDA C++: a grid-stride loop over the iteration space, one named value per node,
// 16-byte vector accesses when graph::vector_width > 1, int indices when graph::index32.
// The argument struct follows the ABI described in graph.hpp.
kernel_source generate_cuda(const graph& g, const codegen_options& opt = {});

// The CUDA spelling of a dtype ("double", "long long", ...).
std::string_view cuda_type(dtype t);

// jetfuse/scalar_ops.hpp as text: the prelude of every kernel.
std::string_view scalar_ops_source();

}  // namespace jf::ir
