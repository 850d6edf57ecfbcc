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
  // Every kernel of the plan: each source runs from its mark to the next "--- " line.
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  std::size_t at = plan.find(mark);
  ASSERT_NE(at, std::string::npos);
  for (; at != std::string::npos; at = plan.find(mark, at)) {
    at += mark.size();
    const std::size_t end = plan.find("\n--- ", at);
    [[maybe_unused]] const std::string kernel = plan.substr(at, end == std::string::npos ? end : end + 1 - at);
#ifdef JF_HAVE_CUDA
    EXPECT_FALSE(nvrtc_unit(std::string(jf::ir::scalar_ops_source()) + kernel).empty());
#endif
  }
}

}  // namespace test_support
