// Compiling generated kernels in the NVRTC batch tests (test_codegen_nest, test_codegen_nvrtc).
// With a GPU, to sm_90 cubins as jetfuse compiles them; without one (CI), to PTX for compute_90
// with the same options and -G: the CUDA C++ and its PTX are checked, while ptxas and NVVM's
// optimisations, which are most of the time (a fifth without them), are left to the GPU machine,
// whose suite compiles and runs every kernel shape.
#pragma once

#include <nvrtc.h>

#include <string>
#include <vector>

#include "cuda/nvrtc_options.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/device.hpp"
#include "jetfuse/errors.hpp"

namespace test_support {

// The compiled unit's bytes (cubin or PTX); jf::compile_error when it does not compile.
inline std::string nvrtc_unit(const std::string& tu, const jf::cuda_rt::compile_options& opt = {}) {
  if (jf::cuda_available()) {
    const std::vector<char> cubin = jf::cuda_rt::nvrtc_compile(tu, "sm_90", opt);
    return std::string(cubin.begin(), cubin.end());
  }
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, tu.c_str(), "jetfuse_kernel.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw jf::compile_error("nvrtcCreateProgram failed", tu, "");
  std::vector<std::string> options = jf::cuda_rt::nvrtc_options("compute_90", opt);
  options.emplace_back("--device-debug");
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  std::size_t n = 0;
  std::string out;
  if (r == NVRTC_SUCCESS && nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS) {
    out.resize(n);
    if (nvrtcGetPTX(prog, out.data()) != NVRTC_SUCCESS) out.clear();
  }
  nvrtcDestroyProgram(&prog);
  if (out.empty()) throw jf::compile_error("NVRTC could not compile the unit to PTX", tu, "");
  return out;
}

}  // namespace test_support
