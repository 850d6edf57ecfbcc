// The nvcc-compiled count of a bool mask's nonzero bytes (count_true.cu; static CUDA runtime), in
// plain C++ for src/cuda/mask/count_mask.cpp. Asynchronous on `stream`; returns a cudaError_t as an
// int (0: success).
#pragma once

#include <cstdint>

namespace jf::cuda_mask {

using i64 = std::int64_t;

// *total (device memory) = the number of nonzero bytes of data[0, n): zeroed, then counted.
int count_true(const void* data, i64 n, unsigned long long* total, int sm_count, void* stream);
const char* error_text(int code);

}  // namespace jf::cuda_mask
