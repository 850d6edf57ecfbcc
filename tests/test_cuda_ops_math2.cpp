// jf::cuda against the CPU executor: arctan2, hypot, minimum, maximum, fmin, fmax.
#include "cuda_op_checks.hpp"

JF_CUDA_OP_TEST(arctan2)
JF_CUDA_OP_TEST(hypot)
JF_CUDA_OP_TEST(minimum)
JF_CUDA_OP_TEST(maximum)
JF_CUDA_OP_TEST(fmin)
JF_CUDA_OP_TEST(fmax)
