// jf::cuda against the CPU executor: add, subtract, multiply, true_divide, floor_divide, remainder, power.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(add)
JF_CUDA_OP_TEST(subtract)
JF_CUDA_OP_TEST(multiply)
JF_CUDA_OP_TEST(true_divide)
JF_CUDA_OP_TEST(floor_divide)
JF_CUDA_OP_TEST(remainder)
JF_CUDA_OP_TEST(power)
