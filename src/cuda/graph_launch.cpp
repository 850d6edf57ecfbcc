// One-node CUDA graphs for cached kernels, one per (thread, kernel): see graph_launch.hpp.
#include "cuda/graph_launch.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace jf::cuda_rt::graph_launch {
namespace {

// Bounds on what a thread keeps: graphs hold driver resources, and a fuzzer or a test suite
// compiles thousands of kernels that each run a few times.
constexpr std::size_t max_graphs = 256;
constexpr std::size_t max_slots = 4096;

struct slot {
  unsigned direct_launches = 0;
  bool unusable = false;  // a launch the graph route cannot take (see launch())
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUgraphNode node = nullptr;
  unsigned dims[7] = {};            // grid, block and shared bytes the exec launches with
  std::vector<unsigned char> args;  // the argument bytes the exec launches with
};

struct thread_graphs {
  std::unordered_map<const kernel*, slot> slots;
  std::size_t graphs = 0;

  void release(slot& s) {
    if (s.exec == nullptr) return;
    // Launches in flight complete; the driver frees the exec after them.
    if (const driver::api* f = driver::get()) {
      (void)f->GraphExecDestroy(s.exec);
      (void)f->GraphDestroy(s.graph);
    }
    s.exec = nullptr;
    s.graph = nullptr;
    s.node = nullptr;
    --graphs;
  }
  void release_all() {
    for (auto& [k, s] : slots) release(s);
  }
  ~thread_graphs() { release_all(); }
};

thread_local thread_graphs tls;

// The bytes of a kernel's only parameter, or 0 when it has another number of parameters.
std::size_t parameter_bytes(const driver::api& f, CUfunction fn) {
  std::size_t offset = 0, bytes = 0, offset1 = 0, bytes1 = 0;
  if (f.FuncGetParamInfo(fn, 0, &offset, &bytes) != CUDA_SUCCESS || offset != 0) return 0;
  if (f.FuncGetParamInfo(fn, 1, &offset1, &bytes1) == CUDA_SUCCESS) return 0;
  return bytes;
}

CUDA_KERNEL_NODE_PARAMS node_params(const kernel& k, const unsigned dims[7], void** params) {
  CUDA_KERNEL_NODE_PARAMS p{};
  p.func = static_cast<CUfunction>(k.function);
  p.gridDimX = dims[0];
  p.gridDimY = dims[1];
  p.gridDimZ = dims[2];
  p.blockDimX = dims[3];
  p.blockDimY = dims[4];
  p.blockDimZ = dims[5];
  p.sharedMemBytes = dims[6];
  p.kernelParams = params;
  return p;
}

bool make_graph(const driver::api& f, const kernel& k, slot& s, const unsigned dims[7], const void* args) {
  const std::size_t bytes = parameter_bytes(f, static_cast<CUfunction>(k.function));
  if (bytes == 0) return false;
  void* params[1] = {const_cast<void*>(args)};
  const CUDA_KERNEL_NODE_PARAMS p = node_params(k, dims, params);
  if (f.GraphCreate(&s.graph, 0) != CUDA_SUCCESS) return false;
  if (f.GraphAddKernelNode(&s.node, s.graph, nullptr, 0, &p) != CUDA_SUCCESS ||
      f.GraphInstantiate(&s.exec, s.graph, 0) != CUDA_SUCCESS) {
    (void)f.GraphDestroy(s.graph);
    s.graph = nullptr;
    s.exec = nullptr;
    return false;
  }
  ++tls.graphs;
  std::memcpy(s.dims, dims, sizeof s.dims);
  const auto* a = static_cast<const unsigned char*>(args);
  s.args.assign(a, a + bytes);
  return true;
}

}  // namespace

bool enabled(const driver::api& f) {
  static const bool on = [&f] {
    const char* v = std::getenv("JF_GRAPH_LAUNCH");
    if (v != nullptr && std::string(v) == "0") return false;
    return f.GraphCreate && f.GraphDestroy && f.GraphAddKernelNode && f.GraphInstantiate && f.GraphExecDestroy &&
           f.GraphExecKernelNodeSetParams && f.GraphLaunch && f.FuncGetParamInfo;
  }();
  return on;
}

bool launch(const driver::api& f, const kernel& k, const unsigned grid[3], const unsigned block[3],
            unsigned shared_bytes, const void* args, CUstream stream) {
  if (!enabled(f)) return false;
  if (tls.slots.size() >= max_slots) {
    tls.release_all();
    tls.slots.clear();
  }
  slot& s = tls.slots[&k];
  if (s.unusable) return false;
  const unsigned dims[7] = {grid[0], grid[1], grid[2], block[0], block[1], block[2], shared_bytes};
  if (s.exec == nullptr) {
    if (s.direct_launches++ == 0) return false;
    if (tls.graphs >= max_graphs) tls.release_all();
    if (!make_graph(f, k, s, dims, args)) {
      s.unusable = true;
      return false;
    }
  } else if (std::memcmp(dims, s.dims, sizeof dims) != 0 || std::memcmp(args, s.args.data(), s.args.size()) != 0) {
    void* params[1] = {const_cast<void*>(args)};
    const CUDA_KERNEL_NODE_PARAMS p = node_params(k, dims, params);
    if (f.GraphExecKernelNodeSetParams(s.exec, s.node, &p) != CUDA_SUCCESS) {
      tls.release(s);
      s.unusable = true;
      return false;
    }
    std::memcpy(s.dims, dims, sizeof s.dims);
    std::memcpy(s.args.data(), args, s.args.size());
  }
  return f.GraphLaunch(s.exec, stream) == CUDA_SUCCESS;
}

}  // namespace jf::cuda_rt::graph_launch
