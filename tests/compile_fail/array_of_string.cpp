// An array of an element type jetfuse does not have.
// expect: jf::array<T>: T must be bool, (u)int8_t, (u)int16_t, (u)int32_t, (u)int64_t, float or double
#include <jetfuse/jetfuse.hpp>
#include <string>
int main() {
  jf::array<std::string> a;
  (void)a;
}
