// The "Awkward Arrays on GPUs" walkthrough in C++: a jagged array built on the CPU, moved to the GPU
// (jf::to_backend), its backend, ak.num and a slice of lists, each printed as Awkward 2.14 shows
// it in a notebook (jf::display: the value in 20 rows, a rule, backend, nbytes, type).
// tests/data/jagged_basics_expected.txt is Awkward's own text for the same steps (written by
// tests/data/gen_jagged_basics_expected.py); ctest runs `jagged_basics cpu` and compares.
//
//   jagged_basics [cpu|cuda]   (default: cuda when a GPU is available, else cpu)
#include <cstdio>
#include <cstring>
#include <jetfuse/jetfuse.hpp>
#include <string>
#include <vector>

namespace {
void say(const std::string& s) { std::printf("%s\n", s.c_str()); }
}  // namespace

int main(int argc, char** argv) {
  const bool want_cpu = argc > 1 && std::strcmp(argv[1], "cpu") == 0;
  const jf::device gpu = !want_cpu && jf::cuda_available() ? jf::cuda : jf::cpu;
  const std::string gpu_name = jf::detail::awkward_backend_name(gpu);

  const std::vector<std::vector<double>> five{{0, 1.1, 2.2}, {}, {3.3, 4.4}, {5.5}, {6.6, 7.7, 8.8, 9.9}};
  std::vector<std::vector<double>> lists;
  for (int i = 0; i < 10000; ++i) lists.insert(lists.end(), five.begin(), five.end());

  say(">>> array_cpu = ak.Array([[0, 1.1, 2.2], [], [3.3, 4.4], [5.5], [6.6, 7.7, 8.8, 9.9]] * 10000)");
  const jf::jagged<double> array_cpu(lists, jf::cpu);
  say(">>> ak.backend(array_cpu)");
  say("'" + jf::detail::awkward_backend_name(jf::backend(array_cpu)) + "'");

  say(">>> array_gpu = ak.to_backend(array_cpu, \"" + gpu_name + "\")");
  const jf::jagged<double> array_gpu = jf::to_backend(array_cpu, gpu);
  say(">>> ak.backend(array_gpu)");
  say("'" + jf::detail::awkward_backend_name(jf::backend(array_gpu)) + "'");

  say(">>> ak.num(array_gpu)");
  say(jf::display(jf::num(array_gpu)));

  say(">>> array_gpu[100:]");
  say(jf::display(array_gpu(jf::range(100, jf::none))));

  say(">>> np.sqrt(array_gpu)");
  say(jf::display(jf::jagged<double>(jf::sqrt(array_gpu))));  // one fused kernel over the elements
  return 0;
}
