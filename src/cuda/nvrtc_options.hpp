// Internal: the NVRTC command line, shared by the compiler and the cache keys.
#pragma once

#include <string>
#include <vector>

#include "cuda/runtime.hpp"

namespace jf::cuda_rt {

std::vector<std::string> nvrtc_options(const std::string& arch, const compile_options& opt);
std::string nvrtc_options_string(const std::string& arch, const compile_options& opt);

}  // namespace jf::cuda_rt
