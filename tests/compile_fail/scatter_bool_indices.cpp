// Bool indices of a scatter: numpy's x[mask] = v is x(mask) = v; jf::put and jf::add_at refuse them.
// expect: jetfuse: bool indices of a scatter
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<double> x = {1.0, 2.0};
  jf::array<bool> m = {true, false};
  jf::add_at(x, m, 1.0);
}
