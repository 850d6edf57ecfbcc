// 20 element-wise expressions with jetfuse: the compile-time benchmark's user file (measure.sh).
#include <jetfuse/jetfuse.hpp>

void run(const jf::array<double>& a, const jf::array<double>& b, const jf::array<double>& c, jf::array<double>* out) {
  out[0] = (-b + jf::sqrt(b*b - 4*a*c)) / (2*a);
  out[1] = a*b + c;
  out[2] = jf::sin(2*a + 1);
  out[3] = jf::exp(-a*a) * jf::cos(b);
  out[4] = jf::sqrt(a*a + b*b + c*c);
  out[5] = (a - b) / (a + b + 1);
  out[6] = jf::log1p(jf::abs(a)) * b;
  out[7] = jf::tanh(a) * c - b;
  out[8] = a*a*a - 3*a*b + c;
  out[9] = jf::cosh(a - b) - jf::cos(c);
  out[10] = jf::abs(a - c) + jf::abs(b - c);
  out[11] = (a + 1) * (b + 2) * (c + 3);
  out[12] = jf::exp(a) / (1 + jf::exp(a));
  out[13] = jf::sqrt(jf::abs(a*b)) + c;
  out[14] = a / (b*b + 1) - c / (a*a + 1);
  out[15] = jf::sin(a)*jf::sin(a) + jf::cos(b)*jf::cos(b);
  out[16] = (a*b - c) * (a*c - b);
  out[17] = jf::log(1 + a*a) - b;
  out[18] = 2*a*b*(jf::cosh(a-b) - jf::cos(b-c));
  out[19] = a*0.5 + b*0.25 + c*0.125;
}
