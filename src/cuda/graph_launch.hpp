// Internal: launching a cached kernel through a one-node CUDA graph. On the H200 machine an
// instantiated graph's cuGraphLaunch costs the host 1.2-1.9 us where cuLaunchKernel of the same
// empty kernel costs 3.3-4.0, and the device runs them back to back at 1.4-2.1 against 3.3-4.1 us
// (bench/experiments/launch_variants.cu); a small cached call is mostly its launch.
#pragma once

#include <cuda.h>

#include "cuda/driver.hpp"
#include "cuda/runtime.hpp"

namespace jf::cuda_rt::graph_launch {

// Launches `k` on stream `s` through this thread's graph for it and returns true; the graph is
// re-parameterised (cuGraphExecKernelNodeSetParams, which leaves launches already enqueued as they
// were) only when grid, block, shared bytes or the argument's bytes differ from its last launch.
// Returns false, launching nothing, when the caller should launch directly: the kernel's first
// launch on this thread (a graph costs an instantiation), a driver without graphs or
// cuFuncGetParamInfo, JF_GRAPH_LAUNCH=0, a kernel with other than one parameter, or a graph call
// that failed (the direct launch then reports the error with the kernel's name).
bool launch(const driver::api& f, const kernel& k, const unsigned grid[3], const unsigned block[3],
            unsigned shared_bytes, const void* args, CUstream s);

// Whether launches may go through graphs in this process (the driver has them and JF_GRAPH_LAUNCH
// is not "0").
bool enabled(const driver::api& f);

}  // namespace jf::cuda_rt::graph_launch
