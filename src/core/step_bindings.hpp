// What one step of a plan runs on: the run-time extents of its global axes and, for every operand,
// its address and strides. Shared by the backends (the CPU executor, the CUDA launch of a step);
// filled by the engine. No YAP, no Eigen, no CUDA.
#pragma once

#include <cstdint>
#include <vector>

namespace jf::detail {

struct operand_binding {
  void* ptr = nullptr;                // element 0 (the element at index 0 on every global axis)
  std::vector<std::int64_t> strides;  // per global axis, in elements (0: the operand does not vary)
};

struct step_bindings {
  std::vector<std::int64_t> extents;    // per global axis of the step's graph (graph::ndim entries)
  std::vector<operand_binding> outputs;  // one per graph::outputs
  std::vector<operand_binding> inputs;   // one per graph::inputs
  std::vector<std::uint64_t> params;     // one 8-byte slot per graph::params, the value in the low bytes
  // Gathers' out-of-bounds record (index_errors.hpp): host memory for the CPU executor, device
  // memory for kernels; null when the graph has no gather.
  void* error = nullptr;
  // Device memory the engine keeps between calls for the kernel (a remembered put's winners), or null.
  void* aux = nullptr;
};

}  // namespace jf::detail
