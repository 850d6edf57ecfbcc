// Writes the CUDA sources jetfuse generates for the per-list sum and max of a float32 jagged array
// (jf::explain_cuda: no GPU needed) to <dir>/<name>_s<steps>.cu, for make_variants.py: each with
// one and two lock steps per trip (list_schedule_override().lock_steps), for an array whose longest
// list is unknown to the kernel (the warp and block paths present; <name> listsum, listmax), at most
// 4096 (no block path; listsumW, listmaxW) and at most 16 (lanes only; listsumL, listmaxL; listmaxL2 with 2 lists per lane).
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
  // (The longest list as the offsets' validation records it: 5000 elements is none of the classes.)
  const jf::jagged<float> x(std::vector<std::vector<float>>{{3, 1}, {}, std::vector<float>(5000, 2.0f)}, jf::cpu);
  const jf::jagged<float> w(std::vector<std::vector<float>>{{3, 1}, {}, std::vector<float>(100, 2.0f)}, jf::cpu);
  const jf::jagged<float> l(std::vector<std::vector<float>>{{3, 1}, {}, {2}}, jf::cpu);
  const std::string mark = "--- CUDA source (prelude jetfuse/scalar_ops.hpp omitted) ---\n";
  auto write = [&](const std::string& name, const std::string& plan) {
    std::ofstream(dir + "/" + name + ".cu") << std::string(jf::ir::scalar_ops_source()) + plan.substr(plan.find(mark) + mark.size());
  };
  for (int steps : {1, 2}) {
    jf::ir::nest::list_schedule_override().lock_steps = steps;
    const std::string sfx = "_s" + std::to_string(steps);
    write("listsum" + sfx, jf::explain_cuda(jf::sum(x, -1)));
    write("listmax" + sfx, jf::explain_cuda(jf::max(x, -1)));
    write("listsumW" + sfx, jf::explain_cuda(jf::sum(w, -1)));
    write("listmaxW" + sfx, jf::explain_cuda(jf::max(w, -1)));
    write("listsumL" + sfx, jf::explain_cuda(jf::sum(l, -1)));
    write("listmaxL" + sfx, jf::explain_cuda(jf::max(l, -1)));
    jf::ir::nest::list_schedule_override().lists_per_lane = 2;  // (the max with 2 lists per lane)
    write("listmaxL2" + sfx, jf::explain_cuda(jf::max(l, -1)));
    jf::ir::nest::list_schedule_override().lists_per_lane = 0;
  }
}
