// Experiment: what does one kernel launch cost the host thread on this machine, by route? A cached
// jetfuse call of the quadratic formula on 1000 float64 took 4.3-4.6 us of host time on the H200
// machine, of which an empty kernel's cuLaunchKernel alone was 3.28-3.43 us (bench_elementwise
// BM_BareLaunch/host:1). Issue 14 asks for <= 3 us per cached call. Each variant launches an empty
// kernel in batches of 100 back to back, the host time of a batch measured up to the last call's
// return (the synchronisation after the batch is not timed); the median of 300 batches, per launch.
//   params8      cuLaunchKernel, a non-blocking stream, one 8-byte parameter (jetfuse's route)
//   params256    the same with a 256-byte parameter struct (a large fused kernel's argument block)
//   extra256     the 256-byte struct passed by CU_LAUNCH_PARAM_BUFFER_POINTER instead
//   legacy       the legacy default stream (0)
//   perthread    CU_STREAM_PER_THREAD
//   launchex     cuLaunchKernelEx with no attributes
//   runtime      cudaLaunchKernel (the runtime API)
//   graph        cuGraphLaunch of an instantiated one-node graph
//   graphset8    cuGraphExecKernelNodeSetParams (a new 8-byte argument each call), then cuGraphLaunch
//   graphset256  the same with the 256-byte parameter struct
//   setonly256   cuGraphExecKernelNodeSetParams alone
//   grid64       params8 with 64 blocks of 256 threads
//   pinned       params8 with the thread pinned to one CPU
//   ctxcur       cuCtxGetCurrent alone (what jetfuse checks before every launch)
// Build: nvcc -O2 -arch=sm_90 -std=c++17 launch_variants.cu -lcuda -o /tmp/lv && /tmp/lv
// Run also under CUDA_MODULE_LOADING=EAGER and CUDA_DEVICE_MAX_CONNECTIONS=1 to see their effect.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#define CK(x)                                                         \
  do {                                                                \
    auto e = (x);                                                     \
    if (e != 0) {                                                     \
      std::printf("error %d at line %d: %s\n", (int)e, __LINE__, #x); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

struct small_args {
  long long n;
};
struct big_args {
  long long v[32];
};
__global__ void empty8(const small_args) {}
__global__ void empty256(const big_args) {}

using clk = std::chrono::steady_clock;

double host_us_per_call(CUstream sync_on, const std::function<void()>& call) {
  const int batch = 100, batches = 300;
  for (int i = 0; i < 200; ++i) call();
  cuStreamSynchronize(sync_on);
  cudaDeviceSynchronize();
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = clk::now();
    for (int i = 0; i < batch; ++i) call();
    const auto t1 = clk::now();
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
    cudaDeviceSynchronize();
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  CK(cudaFree(nullptr));  // the runtime's primary context, current on this thread
  CUfunction f8, f256;
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f8), reinterpret_cast<const void*>(empty8)));
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&f256), reinterpret_cast<const void*>(empty256)));
  CUstream s;
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  small_args a8{0};
  big_args a256{};
  void* p8[] = {&a8};
  void* p256[] = {&a256};
  size_t size256 = sizeof a256;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &a256, CU_LAUNCH_PARAM_BUFFER_SIZE, &size256, CU_LAUNCH_PARAM_END};

  CUgraph g;
  CUgraphExec ge;
  CK(cuGraphCreate(&g, 0));
  CUDA_KERNEL_NODE_PARAMS kp{};
  kp.func = f8;
  kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
  kp.blockDimX = 128;
  kp.blockDimY = kp.blockDimZ = 1;
  kp.kernelParams = p8;
  CUgraphNode node;
  CK(cuGraphAddKernelNode(&node, g, nullptr, 0, &kp));
  CK(cuGraphInstantiate(&ge, g, 0));

  // The same graph shape for the 256-byte kernel, re-parameterised before each launch.
  CUgraph g256;
  CUgraphExec ge256;
  CK(cuGraphCreate(&g256, 0));
  CUDA_KERNEL_NODE_PARAMS kp256 = kp;
  kp256.func = f256;
  kp256.kernelParams = p256;
  CUgraphNode node256;
  CK(cuGraphAddKernelNode(&node256, g256, nullptr, 0, &kp256));
  CK(cuGraphInstantiate(&ge256, g256, 0));
  CUgraphExec ge8b;
  CK(cuGraphInstantiate(&ge8b, g, 0));

  CUlaunchConfig cfg{};
  cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 128;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = s;

  struct variant {
    const char* name;
    CUstream sync;
    std::function<void()> call;
  };
  std::vector<variant> vs = {
      {"params8", s, [&] { cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, s, p8, nullptr); }},
      {"params256", s, [&] { cuLaunchKernel(f256, 1, 1, 1, 128, 1, 1, 0, s, p256, nullptr); }},
      {"extra256", s, [&] { cuLaunchKernel(f256, 1, 1, 1, 128, 1, 1, 0, s, nullptr, extra); }},
      {"legacy", nullptr, [&] { cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, nullptr, p8, nullptr); }},
      {"perthread", CU_STREAM_PER_THREAD,
       [&] { cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, CU_STREAM_PER_THREAD, p8, nullptr); }},
      {"launchex", s, [&] { cuLaunchKernelEx(&cfg, f8, p8, nullptr); }},
      {"runtime", s,
       [&] { cudaLaunchKernel(reinterpret_cast<const void*>(empty8), dim3(1), dim3(128), p8, 0, (cudaStream_t)s); }},
      {"graph", s, [&] { cuGraphLaunch(ge, s); }},
      {"graphset8", s,
       [&] {
         ++a8.n;
         cuGraphExecKernelNodeSetParams(ge8b, node, &kp);
         cuGraphLaunch(ge8b, s);
       }},
      {"graphset256", s,
       [&] {
         ++a256.v[3];
         cuGraphExecKernelNodeSetParams(ge256, node256, &kp256);
         cuGraphLaunch(ge256, s);
       }},
      {"setonly256", s,
       [&] {
         ++a256.v[3];
         cuGraphExecKernelNodeSetParams(ge256, node256, &kp256);
       }},
      {"grid64", s, [&] { cuLaunchKernel(f8, 64, 1, 1, 256, 1, 1, 0, s, p8, nullptr); }},
      {"ctxcur", s,
       [&] {
         CUcontext c;
         cuCtxGetCurrent(&c);
       }},
  };
  for (int round = 0; round < 2; ++round)
    for (auto& v : vs) std::printf("round %d %-10s %.3f us/call\n", round, v.name, host_us_per_call(v.sync, v.call));
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(2, &set);
  if (sched_setaffinity(0, sizeof set, &set) == 0)
    for (int round = 0; round < 2; ++round)
      std::printf("round %d %-10s %.3f us/call\n", round, "pinned",
                  host_us_per_call(s, [&] { cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, s, p8, nullptr); }));
  // Back to back with one synchronisation: the device's own rate of empty kernels.
  {
    const int n = 10000;
    for (int i = 0; i < 100; ++i) cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, s, p8, nullptr);
    cuStreamSynchronize(s);
    const auto t0 = clk::now();
    for (int i = 0; i < n; ++i) cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, s, p8, nullptr);
    cuStreamSynchronize(s);
    std::printf("synced     params8 %d back to back: %.3f us/call\n", n,
                std::chrono::duration<double, std::micro>(clk::now() - t0).count() / n);
    const auto t1 = clk::now();
    for (int i = 0; i < n; ++i) cuGraphLaunch(ge, s);
    cuStreamSynchronize(s);
    std::printf("synced     graph %d back to back: %.3f us/call\n", n,
                std::chrono::duration<double, std::micro>(clk::now() - t1).count() / n);
  }
  // One call and its synchronisation, alone: the round trip a dependent host step waits for.
  for (int route = 0; route < 2; ++route) {
    std::vector<double> t;
    for (int i = 0; i < 2000; ++i) {
      const auto t0 = clk::now();
      if (route == 0)
        cuLaunchKernel(f8, 1, 1, 1, 128, 1, 1, 0, s, p8, nullptr);
      else
        cuGraphLaunch(ge, s);
      cuStreamSynchronize(s);
      t.push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("roundtrip  %s: median %.3f us\n", route ? "graph" : "params8", t[t.size() / 2]);
  }
  return 0;
}
