// A jetfuse function on something that is not an operand.
// expect: jetfuse: an operand of an array expression must be a jf::array
#include <jetfuse/jetfuse.hpp>
#include <string>
int main() {
  auto e = jf::sqrt(std::string("2"));
  (void)e;
}
