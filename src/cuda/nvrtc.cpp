// NVRTC: CUDA C++ source -> cubin. Needs no GPU (and no driver).
#include <nvrtc.h>

#include <string>
#include <vector>

#include "cuda/nvrtc_options.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/stats.hpp"

namespace jf::cuda_rt {
namespace {

// Destroys the program on every path out of nvrtc_compile.
struct program {
  nvrtcProgram p = nullptr;
  ~program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

std::string program_log(nvrtcProgram p) {
  std::size_t n = 0;
  if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n == 0) return {};
  std::string log(n, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

std::vector<std::string> nvrtc_options(const std::string& arch, const compile_options& opt) {
  std::vector<std::string> o = {"--gpu-architecture=" + arch, "-std=c++17", "-DJF_NVRTC=1"};
  // IEEE division, sqrt and denormals, and no contraction of a*b+c into fma: results then match
  // the CPU executor (compiled without contraction) operation for operation.
  if (opt.fast_math) o.emplace_back("--use_fast_math");
  else o.emplace_back("--fmad=false");
  return o;
}

std::string nvrtc_options_string(const std::string& arch, const compile_options& opt) {
  std::string s;
  for (const auto& o : nvrtc_options(arch, opt)) {
    if (!s.empty()) s += ' ';
    s += o;
  }
  return s;
}

std::vector<char> nvrtc_compile(const std::string& source, const std::string& arch, const compile_options& opt) {
  const std::string what = "jetfuse: NVRTC could not compile a kernel for " + arch;
  program prog;
  if (nvrtcResult r = nvrtcCreateProgram(&prog.p, source.c_str(), "jetfuse_kernel.cu", 0, nullptr, nullptr);
      r != NVRTC_SUCCESS)
    throw compile_error(what + ": nvrtcCreateProgram failed: " + nvrtcGetErrorString(r), source, "");
  const std::vector<std::string> options = nvrtc_options(arch, opt);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());
  detail::bump(detail::counter::nvrtc_compiles);
  if (r != NVRTC_SUCCESS) throw compile_error(what + ": " + nvrtcGetErrorString(r), source, program_log(prog.p));
  std::size_t n = 0;
  if (nvrtcResult e = nvrtcGetCUBINSize(prog.p, &n); e != NVRTC_SUCCESS || n == 0)
    throw compile_error(what + ": no cubin (is \"" + arch + "\" a real architecture like sm_90?)", source,
                        program_log(prog.p));
  std::vector<char> cubin(n);
  if (nvrtcResult e = nvrtcGetCUBIN(prog.p, cubin.data()); e != NVRTC_SUCCESS)
    throw compile_error(what + ": nvrtcGetCUBIN failed: " + nvrtcGetErrorString(e), source, program_log(prog.p));
  return cubin;
}

int nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return 0;
  return major * 1000 + minor * 10;
}

}  // namespace jf::cuda_rt
