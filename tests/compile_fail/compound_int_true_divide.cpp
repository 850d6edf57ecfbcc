// numpy: int32 /= 2 raises UFuncTypeError (true division gives float64).
// expect: `x /= e` would cast the result to x's dtype of a lower kind
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<int> x = {1, 2};
  x /= 2;
}
