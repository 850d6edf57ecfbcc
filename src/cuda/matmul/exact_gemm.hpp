// The exact matrix products of jf::cuda for int32, int64 and bool (exact_gemm.cu, compiled by
// nvcc): numpy's wrap-around for integers, OR of ANDs for bool. Plain C++ so that
// src/cuda/matmul/cublas_gemm.cpp calls it. Asynchronous on `stream`; returns a cudaError_t as an
// int (0: success), named by exact_gemm_error_text.
#pragma once

#include "core/matmul_backends.hpp"

namespace jf::cuda_matmul {

int exact_gemm(const detail::matmul_impl::problem& p, void* stream);
const char* exact_gemm_error_text(int code);

}  // namespace jf::cuda_matmul
