// An operand that is neither an array, an expression nor an arithmetic scalar.
// expect: jetfuse: an operand of an array expression must be a jf::array
#include <jetfuse/jetfuse.hpp>
#include <string>
int main() {
  jf::array<double> a = {1.0};
  auto e = a + std::string("2");
  (void)e;
}
