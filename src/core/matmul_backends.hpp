// The seam between jf::matmul (src/core/matmul.cpp: numpy's checks, shapes, dtypes, operands
// converted and laid out) and the backends that multiply: src/cpu/matmul.cpp (a blocked loop on
// the thread pool) and src/cuda/matmul.cpp (cuBLAS for floats, an nvcc kernel for integers and
// bool; src/no_cuda/matmul.cpp without the toolkit).
#pragma once

#include <cstdint>

#include "jetfuse/dtype.hpp"

namespace jf::detail::matmul_impl {

// One operand of a batch of products: matrix `b` (0 <= b < batch) has element (i, j) at
// data + b * batch_stride + i * row_stride + j * col_stride (strides in elements; any sign, 0 for
// a broadcast axis).
struct operand {
  const void* data = nullptr;
  std::int64_t batch_stride = 0, row_stride = 0, col_stride = 0;
};

// c[b] = alpha * (a[b] @ b[b]) + beta * c[b] for every b < batch: a is m x k, b is k x n, c is a
// contiguous array of batch * m * n elements (row-major), all of dtype t. m, n, k, batch >= 1 (the
// caller handles empty results and k == 0). beta == 0: c is not read (it may be uninitialised, as
// BLAS's); alpha != 1 or beta != 0 only for float dtypes (jf::matmul's alpha and beta rewrites). For cuda_gemm with t float32/float64, every operand has a unit
// row or column stride and the other stride >= the extent along it (a BLAS leading dimension).
struct problem {
  dtype t = dtype::float32;
  std::int64_t batch = 1, m = 1, n = 1, k = 1;
  operand a, b;
  void* c = nullptr;
  double alpha = 1, beta = 0;  // values of dtype t
};

void cpu_gemm(const problem& p);
void cuda_gemm(const problem& p);

}  // namespace jf::detail::matmul_impl
