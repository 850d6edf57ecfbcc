// The CUDA runtime of jetfuse (internal): the driver loaded with dlopen, the primary context, a
// stream per host thread, the stream-ordered memory pool, NVRTC, the module caches, launches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace jf::cuda_rt {

// Whether libcuda.so.1 loads, cuInit succeeds and a GPU exists (checked once, never throws).
bool available();
// Throws jf::no_device with the reason (no driver library, cuInit error, no GPU) when unavailable.
void require();

struct device_props {
  std::string name;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int max_threads_per_sm = 0;
  std::size_t total_memory = 0;
};
const device_props& props(int ordinal = 0);

// The calling thread's stream (created on first use; non-blocking w.r.t. the legacy stream).
void* current_stream();
void synchronize();   // waits for the calling thread's stream, then runs the wait hook
void wait_quietly();  // waits without the hook (destructors: an error found there would be lost)

// Called after this thread's stream is waited for by synchronize() and copy_dtoh() (reading a
// result): the engine raises the index errors its kernels recorded since the last wait
// (engine/deferred_index_checks.cpp). May throw; not re-entered by its own waits.
using wait_hook = void (*)();
void set_wait_hook(wait_hook hook);

// Stream-ordered pool allocation on the calling thread's stream. On CUDA_ERROR_OUT_OF_MEMORY the
// pool is synchronised and trimmed once and the allocation retried; then jf::out_of_memory.
void* allocate(std::size_t bytes);
void deallocate(void* ptr);  // stream-ordered free; errors after driver shutdown are ignored

// Copies. Host destinations are complete on return (then the wait hook runs); other copies are
// stream-ordered.
void copy_htod(void* dst, const void* src, std::size_t bytes);
void copy_dtoh(void* dst, const void* src, std::size_t bytes);
void copy_dtod(void* dst, const void* src, std::size_t bytes);
void memset_d8(void* dst, unsigned char value, std::size_t bytes);

// ---- kernels --------------------------------------------------------------------------------
struct compile_options {
  bool fast_math = false;
};

// NVRTC: CUDA C++ -> cubin for an architecture ("sm_90"). Needs no GPU. Throws jf::compile_error
// with the source and the log.
std::vector<char> nvrtc_compile(const std::string& source, const std::string& arch, const compile_options& opt);
int nvrtc_version();  // e.g. 13000

// A loaded kernel: stable address for the life of the process.
struct kernel {
  void* function = nullptr;  // CUfunction
  std::string name;
};

// The kernel `name` of `source`: from the in-memory module cache, else the disk cache
// ($JF_CACHE_DIR, default $XDG_CACHE_HOME/jetfuse or ~/.cache/jetfuse; JF_DISABLE_DISK_CACHE=1
// turns it off), else compiled by NVRTC and stored in both. Counts stats; JF_SHOW_KERNELS=1
// prints each newly compiled kernel with its compile time to stderr.
const kernel& get_kernel(const std::string& name, const std::string& source, const compile_options& opt);

// Launches with one by-value struct argument of `arg_bytes` bytes. Throws jf::cuda_error naming
// the kernel. Asynchronous. From its second launch on a thread, a kernel is launched through that
// thread's one-node CUDA graph for it (graph_launch.hpp; the host's cost of a launch about halves).
void launch(const kernel& k, unsigned grid, unsigned block, const void* args, std::size_t arg_bytes);

// Launches with a 3-d grid and block and `shared_bytes` of dynamic shared memory (loop-nest
// kernels). Throws jf::cuda_error naming the kernel. Asynchronous.
void launch(const kernel& k, const unsigned grid[3], const unsigned block[3], std::size_t shared_bytes, const void* args);

// Whether repeated launches go through graphs: a GPU whose driver has them (CUDA >= 12.4) and
// JF_GRAPH_LAUNCH is not "0".
bool graph_launch_enabled();

// The directory of the disk cache ("" when disabled).
std::string disk_cache_dir();

}  // namespace jf::cuda_rt
