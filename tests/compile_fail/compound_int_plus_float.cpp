// numpy: int32 += 1.5 raises UFuncTypeError (same_kind casting of float64 to int32).
// expect: `x += e` would cast the result to x's dtype of a lower kind
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<int> x = {1, 2};
  x += 1.5;
}
