// Opens libcuda.so.1 once and resolves the driver entry points. The library is never closed, so
// calls made while static objects are destroyed still reach valid code (their errors are ignored).
#include "cuda/driver.hpp"

#include <dlfcn.h>

#include <mutex>

#include "jetfuse/errors.hpp"

namespace jf::cuda_rt::driver {
namespace {

#define JF_CU_STR2(x) #x
#define JF_CU_STR(x) JF_CU_STR2(x)

struct state {
  api fns;
  bool ok = false;
  std::string reason;
};

std::string describe(const api& f, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  // Callable before cuInit; the entry points are missing when the library itself was not found.
  if (f.GetErrorName && f.GetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (f.GetErrorString && f.GetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(r));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

template <class F> bool resolve(void* lib, F& out, const char* symbol, std::string& reason) {
  out = reinterpret_cast<F>(::dlsym(lib, symbol));
  if (out == nullptr && reason.empty()) reason = std::string("libcuda.so.1 has no ") + symbol + " (driver too old)";
  return out != nullptr;
}

void probe(state& s) {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = ::dlerror();
    s.reason = std::string("cannot load libcuda.so.1 (") + (e ? e : "unknown error") + ")";
    return;
  }
  bool all = true;
#define JF_CU_RESOLVE(member, fn) all = resolve(lib, s.fns.member, JF_CU_STR(fn), s.reason) && all;
  JF_CU_FUNCTIONS(JF_CU_RESOLVE)
#undef JF_CU_RESOLVE
  if (!all) return;
#define JF_CU_RESOLVE_OPTIONAL(member, fn) \
  s.fns.member = reinterpret_cast<decltype(s.fns.member)>(::dlsym(lib, JF_CU_STR(fn)));
  JF_CU_OPTIONAL_FUNCTIONS(JF_CU_RESOLVE_OPTIONAL)
#undef JF_CU_RESOLVE_OPTIONAL
  if (CUresult r = s.fns.Init(0); r != CUDA_SUCCESS) {
    s.reason = "cuInit failed: " + describe(s.fns, r);
    return;
  }
  int count = 0;
  if (CUresult r = s.fns.DeviceGetCount(&count); r != CUDA_SUCCESS) {
    s.reason = "cuDeviceGetCount failed: " + describe(s.fns, r);
    return;
  }
  if (count <= 0) {
    s.reason = "the driver reports no GPU";
    return;
  }
  s.ok = true;
}

state& the_state() {
  static state s;
  static std::once_flag once;
  std::call_once(once, [] { probe(s); });
  return s;
}

}  // namespace

const api* get() {
  state& s = the_state();
  return s.ok ? &s.fns : nullptr;
}

const std::string& unavailable_reason() { return the_state().reason; }

const api& require() {
  const api* a = get();
  if (a == nullptr) throw no_device("jetfuse: no CUDA device: " + unavailable_reason());
  return *a;
}

std::string error_string(CUresult r) { return describe(the_state().fns, r); }

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  const std::string msg = std::string("jetfuse: ") + call + " failed: " + error_string(r);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory(msg);
  throw cuda_error(msg);
}

}  // namespace jf::cuda_rt::driver
