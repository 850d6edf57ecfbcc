// A stand-in for libcuda.so.1 that runs nothing: launches return at once, "device" memory is host
// memory, copies are memcpy. With it on LD_LIBRARY_PATH, jetfuse's CUDA backend runs on any machine
// (ctest host_path_stand_in_driver runs it in CI, which has no GPU) and a profiler sees only
// jetfuse's own host work per call (expression walk, variant lookup, argument packing), the
// driver's share being zero. Results are meaningless; never ship it. It reports one device of
// compute capability 9.0 with 132 SMs, like an H100/H200; graphs exist (each kernel's parameter is
// said to be 8 bytes, enough to tell its launches apart by their first pointer), and at exit it
// prints how many graph execs are still alive (jetfuse destroys a thread's graphs when it exits).
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define OK return CUDA_SUCCESS

namespace {
int dummy_ctx, dummy_pool, dummy_stream, dummy_module, dummy_function;
std::atomic<long> live_execs{0};
thread_local CUcontext current = nullptr;
}  // namespace

extern "C" {

CUresult cuInit(unsigned flags) {
  (void)flags;
  OK;
}
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  OK;
}
CUresult cuGetErrorString(CUresult r, const char** s) {
  (void)r;
  *s = "fake driver";
  OK;
}
CUresult cuGetErrorName(CUresult r, const char** s) {
  (void)r;
  *s = "CUDA_ERROR_FAKE";
  OK;
}
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  *d = ordinal;
  OK;
}
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  OK;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  (void)d;
  std::strncpy(name, "fake device (no GPU)", static_cast<std::size_t>(len));
  OK;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *v = 132;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      *v = 2048;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
      *v = 1;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = 232448;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      *v = 233472;
      break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
      *v = 1024;
      break;
    default:
      *v = 0;
  }
  OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice d) {
  (void)d;
  *bytes = std::size_t{80} << 30;
  OK;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  (void)d;
  *c = reinterpret_cast<CUcontext>(&dummy_ctx);
  OK;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = current;
  OK;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  current = c;
  OK;
}
CUresult cuCtxSynchronize() { OK; }
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
  (void)flags;
  *s = reinterpret_cast<CUstream>(&dummy_stream);
  OK;
}
CUresult cuStreamSynchronize(CUstream s) {
  (void)s;
  OK;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  void* m = std::aligned_alloc(256, (n + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<std::uintptr_t>(m);
  OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)));
  OK;
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t n, CUmemoryPool pool, CUstream s) {
  (void)pool;
  (void)s;
  return cuMemAlloc_v2(p, n);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
  (void)s;
  return cuMemFree_v2(p);
}
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice d) {
  (void)d;
  *pool = reinterpret_cast<CUmemoryPool>(&dummy_pool);
  OK;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute a, void* v) {
  (void)pool, (void)a, (void)v;
  OK;
}
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  (void)pool, (void)keep;
  OK;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* h, size_t n, CUstream s) {
  (void)s;
  std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(d)), h, n);
  OK;
}
CUresult cuMemcpyDtoHAsync_v2(void* h, CUdeviceptr d, size_t n, CUstream s) {
  (void)s;
  std::memcpy(h, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(d)), n);
  OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr from, size_t n, CUstream s) {
  (void)s;
  std::memmove(reinterpret_cast<void*>(static_cast<std::uintptr_t>(d)),
               reinterpret_cast<const void*>(static_cast<std::uintptr_t>(from)), n);
  OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  (void)s;
  std::memset(reinterpret_cast<void*>(static_cast<std::uintptr_t>(d)), v, n);
  OK;
}
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  (void)image;
  *m = reinterpret_cast<CUmodule>(&dummy_module);
  OK;
}
CUresult cuModuleUnload(CUmodule m) {
  (void)m;
  OK;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  (void)m, (void)name;
  *f = reinterpret_cast<CUfunction>(&dummy_function);
  OK;
}
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
  (void)f, (void)a, (void)v;
  OK;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void** params, void** extra) {
  (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)s, (void)params, (void)extra;
  OK;
}
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t* offset, size_t* bytes) {
  (void)f;
  if (i != 0) return CUDA_ERROR_INVALID_VALUE;
  *offset = 0;
  *bytes = 8;
  OK;
}
// One-node graphs: handles are heap cells, so leaks and double frees are visible to sanitizers.
CUresult cuGraphCreate(CUgraph* g, unsigned flags) {
  (void)flags;
  *g = reinterpret_cast<CUgraph>(new int(0));
  OK;
}
CUresult cuGraphDestroy(CUgraph g) {
  delete reinterpret_cast<int*>(g);
  OK;
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode* n, CUgraph g, const CUgraphNode* deps, size_t ndeps,
                                 const CUDA_KERNEL_NODE_PARAMS* p) {
  (void)deps, (void)ndeps, (void)p;
  *n = reinterpret_cast<CUgraphNode>(g);
  OK;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec* e, CUgraph g, unsigned long long flags) {
  (void)g, (void)flags;
  *e = reinterpret_cast<CUgraphExec>(new int(0));
  ++live_execs;
  OK;
}
CUresult cuGraphExecDestroy(CUgraphExec e) {
  delete reinterpret_cast<int*>(e);
  --live_execs;
  OK;
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS* p) {
  (void)e, (void)n, (void)p;
  OK;
}
CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
  (void)e, (void)s;
  OK;
}
// NVRTC looks the driver up too (cuInit, cuGetExportTable); without the table it works alone.
CUresult cuGetExportTable(const void** table, const CUuuid* id) {
  (void)id;
  *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // extern "C"

namespace {
// After the program's static and thread-local destructors (a library's destructors run last).
struct report_at_exit {
  ~report_at_exit() { std::fprintf(stderr, "fake libcuda: graph execs live at exit: %ld\n", live_execs.load()); }
} reporter;
}  // namespace
