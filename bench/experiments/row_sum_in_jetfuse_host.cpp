// The jetfuse half of row_sum_in_jetfuse.cu (built by g++: the front end's headers stay out of nvcc).
#include <jetfuse/ir/codegen.hpp>
#include <jetfuse/jetfuse.hpp>
#include <random>
#include <string>
#include <vector>

#include "cuda/codegen/nest_emitter.hpp"  // set_row_splits
#include "cuda/runtime.hpp"

namespace {
jf::array<float> x, r;
}

// A rows x cols float32 matrix of uniform(-1, 1) values on jf::cuda, as bench_reductions makes it.
float* jf_make_matrix(long long rows, long long cols, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<float> v(static_cast<std::size_t>(rows * cols));
  for (auto& e : v) e = static_cast<float>(u(g));
  x = jf::array<float>(v, {rows, cols}, jf::cuda);
  r = jf::array<float>();  // unbound: jf_row_sum binds it to a new result
  return x.data();
}
void jf_row_sum() { r = jf::sum(x, 1); }
const float* jf_row_sum_result() { return r.data(); }
void* jf_stream() { return jf::cuda_rt::current_stream(); }
void jf_sync() { jf::synchronize(); }
// The complete source NVRTC compiles for jf::sum(x, 1): the prelude, then the kernel jf::explain shows.
std::string jf_row_sum_source() {
  const std::string e = jf::explain_cuda(jf::sum(x, 1));
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  const std::size_t at = e.find(mark);
  return at == std::string::npos ? std::string()
                                 : std::string(jf::ir::scalar_ops_source()) + e.substr(at + mark.size());
}
// Column sums of the same matrix (column_sum_in_jetfuse.cu).
void jf_column_sum() { r = jf::sum(x, 0); }
void jf_reset_result() { r = jf::array<float>(); }
// Few long rows split over blockIdx.y (off by default until measured).
void jf_set_row_splits(bool on) { jf::ir::nest::set_row_splits(on); }
