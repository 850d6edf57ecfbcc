// Internal: the primary context of device 0 made current on the calling thread, and that thread's
// stream. Shared by the runtime (memory, copies, launches) and the module cache.
#pragma once

#include <cuda.h>

#include "cuda/driver.hpp"

namespace jf::cuda_rt::context {

// The driver with device 0's primary context current on this thread (retained once per process).
// Throws jf::no_device when there is no GPU.
const driver::api& enter();
// The calling thread's non-blocking stream, created on first use and never destroyed.
CUstream stream();

}  // namespace jf::cuda_rt::context
