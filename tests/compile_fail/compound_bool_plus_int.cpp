// numpy: bool += 1 raises UFuncTypeError (int64 to bool is not same_kind).
// expect: `x += e` would cast the result to x's dtype of a lower kind
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<bool> x = {true};
  x += 1;
}
