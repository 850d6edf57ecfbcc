// numpy: float64 &= 2 raises TypeError (bitwise_and is not defined for floats).
// expect: `x &= e` is not defined for these dtypes
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<double> x = {1.0};
  x &= 2;
}
