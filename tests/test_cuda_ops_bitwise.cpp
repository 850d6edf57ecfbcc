// jf::cuda against the CPU executor: bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(bitwise_and)
JF_CUDA_OP_TEST(bitwise_or)
JF_CUDA_OP_TEST(bitwise_xor)
JF_CUDA_OP_TEST(left_shift)
JF_CUDA_OP_TEST(right_shift)
