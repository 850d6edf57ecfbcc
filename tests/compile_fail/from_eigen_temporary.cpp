// jf::from_eigen of a temporary Eigen Matrix: the view would outlive the memory.
// expect: jf::from_eigen of a temporary Eigen Matrix/Array would view memory that is about to be freed
#include <Eigen/Core>
#include <jetfuse/eigen.hpp>
int main() {
  auto a = jf::from_eigen(Eigen::MatrixXd::Zero(2, 2).eval());
  (void)a;
}
