// An evaluated option array beside jagged operands (Awkward broadcasts a None per-list value as a
// None list; not supported yet): one static_assert.
// expect: a jf::option_array beside jagged operands is not supported yet
#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::jagged<double> x({{1, 2}, {}}, jf::cpu);
  const jf::option_array<double> best = jf::max(x, -1);
  const jf::jagged<double> y = x - best;
  (void)y;
}
