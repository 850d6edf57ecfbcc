// The CUDA driver API, opened at run time with dlopen (libcuda is never linked, so the library
// loads on machines without a GPU). cuda.h is used for types only; each entry point is looked up
// under the versioned name that cuda.h maps the plain name to (cuMemAlloc -> cuMemAlloc_v2).
#pragma once

#include <cuda.h>

#include <string>

namespace jf::cuda_rt::driver {

// X-macro: (member, cuda.h name). The cuda.h macro expands the name to its versioned symbol.
#define JF_CU_FUNCTIONS(X)                                   \
  X(Init, cuInit)                                            \
  X(DriverGetVersion, cuDriverGetVersion)                    \
  X(GetErrorString, cuGetErrorString)                        \
  X(GetErrorName, cuGetErrorName)                            \
  X(DeviceGet, cuDeviceGet)                                  \
  X(DeviceGetCount, cuDeviceGetCount)                        \
  X(DeviceGetName, cuDeviceGetName)                          \
  X(DeviceGetAttribute, cuDeviceGetAttribute)                \
  X(DeviceTotalMem, cuDeviceTotalMem)                        \
  X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain)        \
  X(CtxGetCurrent, cuCtxGetCurrent)                          \
  X(CtxSetCurrent, cuCtxSetCurrent)                          \
  X(CtxSynchronize, cuCtxSynchronize)                        \
  X(StreamCreate, cuStreamCreate)                            \
  X(StreamSynchronize, cuStreamSynchronize)                  \
  X(MemAlloc, cuMemAlloc)                                    \
  X(MemFree, cuMemFree)                                      \
  X(MemAllocFromPoolAsync, cuMemAllocFromPoolAsync)          \
  X(MemFreeAsync, cuMemFreeAsync)                            \
  X(DeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool)      \
  X(MemPoolSetAttribute, cuMemPoolSetAttribute)              \
  X(MemPoolTrimTo, cuMemPoolTrimTo)                          \
  X(MemcpyHtoDAsync, cuMemcpyHtoDAsync)                      \
  X(MemcpyDtoHAsync, cuMemcpyDtoHAsync)                      \
  X(MemcpyDtoDAsync, cuMemcpyDtoDAsync)                      \
  X(MemsetD8Async, cuMemsetD8Async)                          \
  X(ModuleLoadData, cuModuleLoadData)                        \
  X(ModuleUnload, cuModuleUnload)                            \
  X(ModuleGetFunction, cuModuleGetFunction)                  \
  X(FuncSetAttribute, cuFuncSetAttribute)                    \
  X(LaunchKernel, cuLaunchKernel)

// Entry points jetfuse can do without (null when the driver lacks them): the one-node graphs
// that launch cached kernels (graph_launch.hpp) need all of them, cuFuncGetParamInfo since 12.4.
#define JF_CU_OPTIONAL_FUNCTIONS(X)                               \
  X(GraphCreate, cuGraphCreate)                                   \
  X(GraphDestroy, cuGraphDestroy)                                 \
  X(GraphAddKernelNode, cuGraphAddKernelNode)                     \
  X(GraphInstantiate, cuGraphInstantiate)                         \
  X(GraphExecDestroy, cuGraphExecDestroy)                         \
  X(GraphExecKernelNodeSetParams, cuGraphExecKernelNodeSetParams) \
  X(GraphLaunch, cuGraphLaunch)                                   \
  X(FuncGetParamInfo, cuFuncGetParamInfo)

struct api {
#define JF_CU_DECLARE(member, fn) decltype(&fn) member = nullptr;
  JF_CU_FUNCTIONS(JF_CU_DECLARE)
  JF_CU_OPTIONAL_FUNCTIONS(JF_CU_DECLARE)
#undef JF_CU_DECLARE
};

// The driver entry points once libcuda.so.1 is open, cuInit succeeded and a GPU exists; else
// nullptr. Thread-safe, probed once, never throws.
const api* get();
// Why get() is null ("" when it is not).
const std::string& unavailable_reason();
// The loaded driver or jf::no_device("jetfuse: no CUDA device: <reason>").
const api& require();

// "CUDA_ERROR_X (description)" for a result code.
std::string error_string(CUresult r);
// Throws jf::cuda_error("<call> failed: <error string>") unless r == CUDA_SUCCESS
// (jf::out_of_memory for CUDA_ERROR_OUT_OF_MEMORY).
void check(CUresult r, const char* call);

}  // namespace jf::cuda_rt::driver
