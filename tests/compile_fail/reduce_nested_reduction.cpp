// A reduction of per-inner-list values of a nested array (not supported yet): one static_assert.
// expect: a reduction of per-inner-list values of a nested array is not supported yet
#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::jagged<jf::jagged<double>> x({{{1, 2}, {}}, {{3}}}, jf::cpu);
  const auto e = jf::sum(jf::sum(x, -1), -1);
  (void)jf::eval(e);
}
