// numpy.subtract.at on bool raises TypeError (numpy's boolean subtract is not supported).
// expect: jetfuse: this ufunc.at is not defined for these dtypes
#include <jetfuse/jetfuse.hpp>
int main() {
  jf::array<bool> x = {true, false};
  jf::array<long> i = {0, 1};
  jf::subtract_at(x, i, true);
}
