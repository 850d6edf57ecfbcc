// Indices must be integers (numpy: IndexError "arrays used as indices must be of integer type").
// expect: jf::take: the indices must be an integer array or expression
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<double> x = {1.0, 2.0};
  (void)jf::take(x, x * 0.0);
}
