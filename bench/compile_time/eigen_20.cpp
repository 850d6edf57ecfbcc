// The same 20 expressions with plain Eigen arrays: the compile-time baseline (measure.sh).
#include <Eigen/Core>

using A = Eigen::ArrayXd;
template <class X> auto sqrt_(const X& x) { return x.sqrt(); }
template <class X> auto sin_(const X& x) { return x.sin(); }
template <class X> auto exp_(const X& x) { return x.exp(); }
template <class X> auto cos_(const X& x) { return x.cos(); }
template <class X> auto log1p_(const X& x) { return x.log1p(); }
template <class X> auto abs_(const X& x) { return x.abs(); }
template <class X> auto tanh_(const X& x) { return x.tanh(); }
template <class X> auto cosh_(const X& x) { return x.cosh(); }
template <class X> auto log_(const X& x) { return x.log(); }

void run(const A& a, const A& b, const A& c, A* out) {
  out[0] = (-b + sqrt_(b*b - 4*a*c)) / (2*a);
  out[1] = a*b + c;
  out[2] = sin_(2*a + 1);
  out[3] = exp_(-a*a) * cos_(b);
  out[4] = sqrt_(a*a + b*b + c*c);
  out[5] = (a - b) / (a + b + 1);
  out[6] = log1p_(abs_(a)) * b;
  out[7] = tanh_(a) * c - b;
  out[8] = a*a*a - 3*a*b + c;
  out[9] = cosh_(a - b) - cos_(c);
  out[10] = abs_(a - c) + abs_(b - c);
  out[11] = (a + 1) * (b + 2) * (c + 3);
  out[12] = exp_(a) / (1 + exp_(a));
  out[13] = sqrt_(abs_(a*b)) + c;
  out[14] = a / (b*b + 1) - c / (a*a + 1);
  out[15] = sin_(a)*sin_(a) + cos_(b)*cos_(b);
  out[16] = (a*b - c) * (a*c - b);
  out[17] = log_(1 + a*a) - b;
  out[18] = 2*a*b*(cosh_(a-b) - cos_(b-c));
  out[19] = a*0.5 + b*0.25 + c*0.125;
}
