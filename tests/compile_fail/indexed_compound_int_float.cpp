// numpy's x[indices] += 1.5 on an integer x: same_kind forbids the float result (UFuncTypeError).
// expect: jetfuse: `x(indices) += v` would cast the result to x's dtype of a lower kind
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<int> x = {1, 2};
  jf::array<long> i = {0, 1};
  x(i) += 1.5;
}
