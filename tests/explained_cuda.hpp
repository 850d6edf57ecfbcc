// The CUDA source of a jf::explain_cuda plan compiled by NVRTC (the prelude added back: an sm_90
// cubin, or PTX without a GPU, nvrtc_units.hpp), where the CUDA toolkit is; without it only the
// source's presence is checked
// (tests/test_jagged_expr.cpp, test_nested.cpp, test_pad_none.cpp).
#pragma once

#include <gtest/gtest.h>

#include <string>

#ifdef JF_HAVE_CUDA
#include "jetfuse/ir/codegen.hpp"
#include "nvrtc_units.hpp"
#endif

namespace test_support {

inline void expect_explained_cuda_compiles(const std::string& plan) {
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  const std::size_t at = plan.find(mark);
  ASSERT_NE(at, std::string::npos);
#ifdef JF_HAVE_CUDA
  const std::string source = std::string(jf::ir::scalar_ops_source()) + plan.substr(at + mark.size());
  EXPECT_FALSE(nvrtc_unit(source).empty());
#endif
}

}  // namespace test_support
