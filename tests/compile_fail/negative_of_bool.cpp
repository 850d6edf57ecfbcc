// numpy: -bool_array raises TypeError (the boolean negative is not supported; use ~ or logical_not).
// expect: jetfuse: this operation is not defined for these dtypes (negative, subtract or sign of bool
#include <jetfuse/jetfuse.hpp>
int main() {
  const jf::array<bool> x = {true};
  jf::array<bool> y = -x;
}
