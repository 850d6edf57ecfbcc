// x(mask) = values with one value per selected element needs compaction (not there yet).
// expect: jetfuse: x(mask) = values assigns one scalar to the selected elements
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<double> x = {1.0, 2.0};
  jf::array<bool> m = {true, false};
  x(m) = x * 2;
}
