// numpy: uint8 += int8 raises UFuncTypeError (the int16 result to uint8 is not same_kind).
// expect: `x += e` would cast the result to x's dtype of a lower kind
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<std::uint8_t> x = {1};
  const jf::array<std::int8_t> y = {1};
  x += y;
}
