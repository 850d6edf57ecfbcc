// jf::cuda against the CPU executor: negative, absolute, square, reciprocal, floor, ceil, trunc, sign, isnan, isinf, isfinite, logical_not, invert.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(negative)
JF_CUDA_OP_TEST(absolute)
JF_CUDA_OP_TEST(square)
JF_CUDA_OP_TEST(reciprocal)
JF_CUDA_OP_TEST(floor)
JF_CUDA_OP_TEST(ceil)
JF_CUDA_OP_TEST(trunc)
JF_CUDA_OP_TEST(sign)
JF_CUDA_OP_TEST(isnan)
JF_CUDA_OP_TEST(isinf)
JF_CUDA_OP_TEST(isfinite)
JF_CUDA_OP_TEST(logical_not)
JF_CUDA_OP_TEST(invert)
