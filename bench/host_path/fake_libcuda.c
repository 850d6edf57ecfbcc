/* A stand-in for libcuda.so.1 that runs nothing: launches return at once, "device" memory is host
 * memory, copies are memcpy. With it on LD_LIBRARY_PATH, jetfuse's CUDA backend runs on any machine
 * and a profiler sees only jetfuse's own host work per call (expression walk, variant lookup,
 * argument packing), the driver's share being zero. Results are meaningless; never ship it.
 * It reports one device of compute capability 9.0 with 132 SMs, like an H100/H200; graphs are
 * left out (cuFuncGetParamInfo fails), so every launch takes the cuLaunchKernel route.
 * Build: see host_path.sh. */
#include <cuda.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OK return CUDA_SUCCESS

static int dummy_ctx, dummy_pool, dummy_stream, dummy_module, dummy_function;

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
  strncpy(name, "fake device (no GPU)", (size_t)len);
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
  *bytes = (size_t)80 << 30;
  OK;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice d) {
  (void)d;
  *c = (CUcontext)&dummy_ctx;
  OK;
}
static __thread CUcontext current;
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = current;
  OK;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  current = c;
  OK;
}
CUresult cuCtxSynchronize(void) { OK; }
CUresult cuStreamCreate(CUstream* s, unsigned flags) {
  (void)flags;
  *s = (CUstream)&dummy_stream;
  OK;
}
CUresult cuStreamSynchronize(CUstream s) {
  (void)s;
  OK;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  void* m = aligned_alloc(256, (n + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)m;
  OK;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void*)(uintptr_t)p);
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
  *pool = (CUmemoryPool)&dummy_pool;
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
  memcpy((void*)(uintptr_t)d, h, n);
  OK;
}
CUresult cuMemcpyDtoHAsync_v2(void* h, CUdeviceptr d, size_t n, CUstream s) {
  (void)s;
  memcpy(h, (const void*)(uintptr_t)d, n);
  OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr from, size_t n, CUstream s) {
  (void)s;
  memmove((void*)(uintptr_t)d, (const void*)(uintptr_t)from, n);
  OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  (void)s;
  memset((void*)(uintptr_t)d, v, n);
  OK;
}
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  (void)image;
  *m = (CUmodule)&dummy_module;
  OK;
}
CUresult cuModuleUnload(CUmodule m) {
  (void)m;
  OK;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  (void)m, (void)name;
  *f = (CUfunction)&dummy_function;
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
  (void)f, (void)i, (void)offset, (void)bytes;
  return CUDA_ERROR_NOT_SUPPORTED;
}
/* NVRTC looks the driver up too (cuInit, cuGetExportTable); without the table it works alone. */
CUresult cuGetExportTable(const void** table, const CUuuid* id) {
  (void)id;
  *table = NULL;
  return CUDA_ERROR_NOT_SUPPORTED;
}
