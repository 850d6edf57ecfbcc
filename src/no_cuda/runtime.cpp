// The CUDA runtime of a CPU-only build: there is never a device, and every use of one says so.
#include "cuda/runtime.hpp"

#include "jetfuse/errors.hpp"

namespace jf::cuda_rt {
namespace {

[[noreturn]] void no_cuda() {
  throw no_device("jetfuse: no CUDA device: jetfuse was built without the CUDA backend (JF_ENABLE_CUDA=OFF or no toolkit)");
}

}  // namespace

bool available() { return false; }
void require() { no_cuda(); }
const device_props& props(int) { no_cuda(); }
void* current_stream() { no_cuda(); }
void synchronize() { no_cuda(); }
void wait_quietly() { no_cuda(); }
void set_wait_hook(wait_hook) {}  // no stream is ever waited for
void* allocate(std::size_t) { no_cuda(); }
void deallocate(void*) {}  // nothing can have been allocated; called from destructors, so it never throws
void copy_htod(void*, const void*, std::size_t) { no_cuda(); }
void copy_dtoh(void*, const void*, std::size_t) { no_cuda(); }
void copy_dtod(void*, const void*, std::size_t) { no_cuda(); }
void memset_d8(void*, unsigned char, std::size_t) { no_cuda(); }
std::vector<char> nvrtc_compile(const std::string&, const std::string&, const compile_options&) { no_cuda(); }
int nvrtc_version() { no_cuda(); }
const kernel& get_kernel(const std::string&, const std::string&, const compile_options&) { no_cuda(); }
void launch(const kernel&, unsigned, unsigned, const void*, std::size_t) { no_cuda(); }
void launch(const kernel&, const unsigned[3], const unsigned[3], std::size_t, const void*) { no_cuda(); }
bool graph_launch_enabled() { return false; }
std::string disk_cache_dir() { return ""; }  // no kernels are compiled, so no cache is used

}  // namespace jf::cuda_rt
