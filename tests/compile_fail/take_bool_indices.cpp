// Bool indices are numpy's mask (x[mask]), not positions: jf::take refuses them.
// expect: jf::take: bool indices are a mask
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<double> x = {1.0, 2.0};
  jf::array<bool> m = {true, false};
  (void)jf::take(x, m);
}
