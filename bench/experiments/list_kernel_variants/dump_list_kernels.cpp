// Writes the CUDA sources jetfuse generates for the per-list sum and max of a float32 jagged array
// (jf::explain_cuda: no GPU needed) to <dir>/<name>_s<steps>.cu, for make_variants.py: each with
// one and two lock steps per trip (list_schedule_override().lock_steps).
// Build (from the repository root, after the dev build):
//   g++ -std=c++20 -O1 -I include -I src -I build/dev/generated bench/experiments/list_kernel_variants/dump_list_kernels.cpp \
//       build/dev/libjetfuse.a -L/usr/local/cuda/lib64 -lnvrtc -lcudart_static -ldl -lpthread -lrt -o /tmp/dump_list_kernels
#include <fstream>
#include <string>

#include "cuda/codegen/nest_emitter.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "jetfuse/jetfuse.hpp"

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const jf::jagged<float> x(std::vector<std::vector<float>>{{3, 1}, {}, {2}}, jf::cpu);
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  auto write = [&](const std::string& name, const std::string& plan) {
    std::ofstream(dir + "/" + name + ".cu") << std::string(jf::ir::scalar_ops_source()) + plan.substr(plan.find(mark) + mark.size());
  };
  for (int steps : {1, 2}) {
    jf::ir::nest::list_schedule_override().lock_steps = steps;
    write("listsum_s" + std::to_string(steps), jf::explain_cuda(jf::sum(x, -1)));
    write("listmax_s" + std::to_string(steps), jf::explain_cuda(jf::max(x, -1)));
  }
}
