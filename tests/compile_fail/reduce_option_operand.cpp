// A reduction of an evaluated option array (Awkward skips None; not supported yet): one static_assert.
// expect: a reduction of per-list values that may be None (an evaluated jf::option_array
#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::jagged<double> x({{1, 2}, {}}, jf::cpu);
  const jf::option_array<double> best = jf::max(x, -1);
  const jf::array<double> total = jf::sum(best * 2);
  (void)total;
}
