// An array of an element type jetfuse does not have.
// expect: jf::array<T>: T must be bool, int32_t, int64_t, float or double
#include <jetfuse/jetfuse.hpp>
#include <string>
int main() {
  jf::array<std::string> a;
  (void)a;
}
