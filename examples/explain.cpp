// Prints what jetfuse does with the quadratic formula: on the GPU the IR before and after the
// optimiser and the generated CUDA kernel(s); on the CPU the IR and how the CPU executor runs
// it. Runs nothing, so it works without a GPU.
#include <cstdio>

#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  jf::array<double> a = jf::full<double>({1000}, 1.0, dev);
  jf::array<double> b = jf::full<double>({1000}, 5.0, dev);
  jf::array<double> c = jf::full<double>({1000}, 2.0, dev);
  std::puts(jf::explain((-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a)).c_str());
  std::puts("=== the same, unfused (on the GPU: one kernel per operation) ===");
  std::puts(jf::explain(jf::unfused, (-b + jf::sqrt(b * b - 4 * a * c)) / (2 * a)).c_str());
  return 0;
}
