// jf::matmul's lazy value (detail/matmul_node.hpp) and the rewrite of a sum of a product: for 2-d
// (or 1-d) operands, sum(a @ b, 0) = sum(a, 0) @ b, sum(a @ b, 1) = a @ sum(b, 1) and
// sum(a @ b) = sum(a, 0) . sum(b, 1), each exact in real arithmetic. The sums of an operand are
// jetfuse's fused reductions (sum_reduction.cpp); the remaining vector product goes where the
// route says (matmul_node.hpp: by default cuBLAS for sum(a, 0) @ b, a fused row multiply-reduction
// for a @ sum(b, 1)). Everything else (batches; integer dtypes, which matmul.hpp never sums here)
// multiplies first and then sums.
#include "jetfuse/detail/matmul_node.hpp"

#include <atomic>
#include <cmath>
#include <memory>
#include <sstream>

#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

using i64 = std::int64_t;

std::atomic<product_route> route{product_route::automatic};

// Whether the vector-matrix (columns: sum(a, 0) @ b) or matrix-vector (rows) product goes through
// the matmul backend rather than a fused multiply-reduction.
bool through_matmul(bool columns) {
  const product_route r = route.load();
  return r == product_route::matmul || (r == product_route::automatic && columns);
}

std::string shape_text(const shape_t& s) {
  std::string out = "(";
  for (int i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// The summed axes of the 2-d product a2 @ b2 (bit 0: its rows, bit 1: its columns) that the summed
// axes of numpy's result (1-d operands' axes removed) stand for; -1 where the product is batched.
int product_axes(const matmul_node& n) {
  if (n.a.ndim() > 2 || n.b.ndim() > 2) return -1;
  int result_axis_of[2] = {-1, -1};  // numpy's result axis of the product's rows / columns
  int r = 0;
  if (n.a.ndim() == 2) result_axis_of[0] = r++;
  if (n.b.ndim() == 2) result_axis_of[1] = r++;
  int bits = 0;
  for (int k = 0; k < n.sum.naxes; ++k)
    for (int p = 0; p < 2; ++p)
      if (result_axis_of[p] == n.sum.axes[k]) bits |= 1 << p;
  return bits;
}

bool rewritten(const matmul_node& n) { return n.summed && is_floating(n.a.dtype()) && product_axes(n) >= 0; }

array_base as_matrix(const array_base& x, bool row) {  // a 1-d operand as numpy's matmul sees it
  if (x.ndim() == 2) return x;
  return reshape(x, row ? shape_t{1, x.shape()[0]} : shape_t{x.shape()[0], 1});
}

std::string axes_text(const matmul_node& n) {
  if (n.sum.naxes == n.product.size()) return n.sum.keepdims ? "keepdims" : "";
  std::string s = "axis=";
  if (n.sum.naxes > 1) s += "(";
  for (int k = 0; k < n.sum.naxes; ++k) s += (k ? ", " : "") + std::to_string(n.sum.axes[k]);
  if (n.sum.naxes > 1) s += ")";
  return n.sum.keepdims ? s + ", keepdims" : s;
}

// numpy's shape in dot's messages: (2,3), (3,).
std::string compact(const shape_t& s) {
  std::string out = "(";
  for (int i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// A value of dtype t as a double: numpy's weak scalar converted to the array's dtype.
double rounded(dtype t, double v) { return t == dtype::float32 ? double(static_cast<float>(v)) : v; }

// Whether v is finite, nonzero and normal in dtype t (a factor gemm can take as alpha exactly as
// numpy's multiplication would apply it, up to rounding).
bool normal_in(dtype t, double v) {
  if (t == dtype::float32) return std::isnormal(static_cast<float>(v));
  return std::isnormal(v);
}

// The steps' combined factor, each step rounded to the dtype as numpy rounds each operation's
// result; NaN where a step or an intermediate is zero, infinite, NaN or subnormal.
double combined_alpha(const matmul_node& n) {
  const dtype t = n.a.dtype();
  double alpha = 1;
  for (const scale_step& s : n.steps) {
    if (s.op == '-') {
      alpha = -alpha;
      continue;
    }
    if (!normal_in(t, s.value)) return std::nan("");
    alpha = rounded(t, s.op == '/' ? alpha / s.value : alpha * s.value);
    if (!normal_in(t, alpha)) return std::nan("");
  }
  return alpha;
}

// Whether c broadcasts to `to` without enlarging it (numpy's rules).
bool broadcasts_into(const shape_t& c, const shape_t& to) {
  if (c.size() > to.size()) return false;
  for (int i = 0; i < c.size(); ++i) {
    const std::int64_t e = c[c.size() - 1 - i], f = to[to.size() - 1 - i];
    if (e != f && e != 1) return false;
  }
  return true;
}

// Why a node with steps or an addend is not one gemm ("" when it is).
std::string fold_refusal(const matmul_node& n) {
  if (n.steps.empty() && n.c.is_null()) return "";
  if (!is_floating(n.a.dtype())) return "integer product";
  if (n.summed) return "a sum of the product: the factors apply to its small result";
  if (n.dot && n.a.ndim() == 1 && n.b.ndim() == 1) return "dot of two vectors (a fused reduction, not a gemm)";
  const std::int64_t k = n.a.shape()[n.a.ndim() - 1];
  if (n.product.product() == 0 || k == 0) return "an empty product or k = 0";
  if (std::isnan(combined_alpha(n))) return "a factor or their product is zero, not finite or subnormal";
  if (!n.c.is_null()) {
    if (n.c.device() != n.a.device()) return "c is on another backend";
    if (n.c.dtype() != n.a.dtype()) return "c has another dtype";
    if (!broadcasts_into(n.c.shape(), n.product)) return "c does not broadcast to the product's shape";
  }
  return "";
}

std::string steps_text(const matmul_node& n) {
  std::ostringstream os;
  for (const scale_step& s : n.steps) {
    if (s.op == '-')
      os << " negated,";
    else
      os << " " << (s.op == '/' ? "/ " : "* ") << s.value << ",";
  }
  std::string t = os.str();
  if (!t.empty()) t.pop_back();
  return t;
}

// numpy.dot(a, b) for operands that are not two vectors, through the matmul backend.
array_base dot_product(const matmul_node& n, const gemm_terms& t) {
  const array_base &a = n.a, &b = n.b;
  if (a.ndim() <= 2 && b.ndim() <= 2) return matmul(a, b, t);  // numpy.dot is numpy.matmul here
  if (a.ndim() == 1 || b.ndim() == 1) return matmul(a, b, t);   // a vector against a stack: matmul's shape too
  // dot(a, b)[i..., j..., m] = sum(a[i..., :] * b[j..., :, m]): a as (P, k), b with its k axis first
  // as (k, Q * m): one 2-d product, reshaped (views where numpy's reshape would make them).
  const std::int64_t k = a.shape()[a.ndim() - 1];
  std::int64_t rows = 1, cols = 1;
  for (int d = 0; d < a.ndim() - 1; ++d) rows *= a.shape()[d];
  for (int d = 0; d < b.ndim(); ++d)
    if (d != b.ndim() - 2) cols *= b.shape()[d];
  const array_base a2 = reshape(a, shape_t{rows, k});
  shape_t axes = shape_t::of_rank(b.ndim());
  axes[0] = b.ndim() - 2;
  for (int d = 0; d < b.ndim() - 2; ++d) axes[d + 1] = d;
  axes[b.ndim() - 1] = b.ndim() - 1;
  const array_base bt = transpose(b, axes);
  const array_base b2 = reshape(bt, shape_t{k, cols});
  gemm_terms t2 = t;
  t2.shape = n.product;
  return reshape(matmul(a2, b2, t2), n.product);
}

// The product's value (a @ b or dot(a, b)) with these terms.
array_base product_value(const matmul_node& n, const gemm_terms& t) {
  if (!n.dot) return matmul(n.a, n.b, t);
  if (n.a.ndim() == 1 && n.b.ndim() == 1) return sum_of_products(n.a, n.b, 0, false);  // the fused form
  return dot_product(n, t);
}

}  // namespace

void set_product_route(product_route r) { route.store(r); }
product_route get_product_route() { return route.load(); }
bool product_through_matmul(bool columns) { return through_matmul(columns); }

matmul_node make_matmul_node(const array_base& a, const array_base& b) {
  matmul_node n;
  n.product = matmul_shape(a, b);  // numpy's errors now, where jf::matmul is called
  n.a = a;
  n.b = b;
  n.shape = n.product;
  return n;
}

matmul_node make_dot_node(const array_base& a, const array_base& b) {
  if (a.is_null() || b.is_null()) throw value_error("jetfuse: jf::dot of a null array handle");
  if (a.ndim() == 0 || b.ndim() == 0)
    throw value_error("jetfuse: jf::dot of a 0-d array of shape " + compact(a.ndim() == 0 ? a.shape() : b.shape()) +
                      " (numpy multiplies element-wise: write a * b)");
  const int da = a.ndim() - 1, db = b.ndim() == 1 ? 0 : b.ndim() - 2;
  if (a.shape()[da] != b.shape()[db])
    throw shape_error("shapes " + compact(a.shape()) + " and " + compact(b.shape()) + " not aligned: " +
                      std::to_string(a.shape()[da]) + " (dim " + std::to_string(da) + ") != " +
                      std::to_string(b.shape()[db]) + " (dim " + std::to_string(db) + ")");
  if (a.device() != b.device())
    throw backend_mismatch("jf::dot: the operands are on " + to_string(a.device()) + " and " + to_string(b.device()) +
                           "; move one with jf::to_backend first");
  matmul_node n;
  n.a = a;
  n.b = b;
  n.dot = true;
  n.product = shape_t{};  // a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
  for (int d = 0; d < da; ++d) n.product.push_back(a.shape()[d]);
  for (int d = 0; d < b.ndim(); ++d)
    if (d != db) n.product.push_back(b.shape()[d]);
  n.shape = n.product;
  return n;
}

matmul_node scaled(const matmul_node& n, char op, double s) {
  if (op != '*' && op != '/' && op != '-') throw value_error("jetfuse: internal: scale step " + std::string(1, op));
  matmul_node r = n;
  r.steps.push_back(scale_step{op, op == '-' ? -1.0 : rounded(n.a.dtype(), s)});
  return r;
}

matmul_node plus(const matmul_node& n, const array_base& c, bool subtract) {
  if (c.is_null()) throw value_error("jetfuse: matmul(a, b) + c with c a null array handle");
  if (!n.c.is_null()) throw value_error("jetfuse: internal: a second addend");
  matmul_node r = n;
  r.c = c;
  r.c_subtracted = subtract;
  return r;
}

bool folds(const matmul_node& n) { return fold_refusal(n).empty(); }

matmul_node bare(const matmul_node& n) {
  matmul_node r = n;
  r.steps.clear();
  r.c = array_base{};
  r.c_subtracted = false;
  return r;
}

matmul_node sum_of(const matmul_node& n, const reduce_spec& spec) {
  const int rank = n.shape.size();  // the value's (a sum of a sum sums more of the product's axes)
  bool red[max_ndim] = {};
  for (int k = 0; k < rank; ++k) red[k] = spec.all_axes;
  if (!spec.all_axes)
    for (int k = 0; k < spec.naxes; ++k) {  // numpy's (and jetfuse's reductions') messages
      int ax = spec.axes[k];
      if (ax < -rank || ax >= rank)
        throw axis_error("axis " + std::to_string(ax) + " is out of bounds for array of dimension " +
                         std::to_string(rank));
      if (ax < 0) ax += rank;
      if (red[ax]) throw axis_error("duplicate value in 'axis'");
      red[ax] = true;
    }
  // The product's axis behind each axis of the value, and the product's axes summed so far.
  bool summed[max_ndim] = {};
  int product_axis[max_ndim] = {};
  for (int k = 0; k < n.sum.naxes && n.summed; ++k) summed[n.sum.axes[k]] = true;
  for (int p = 0, k = 0; p < n.product.size(); ++p)
    if (!summed[p] || n.sum.keepdims) product_axis[k++] = p;
  matmul_node s = n;
  s.summed = true;
  s.sum = reduce_spec{};
  s.sum.kind = reducer::sum;
  s.sum.all_axes = false;
  s.sum.keepdims = spec.keepdims;
  s.shape = shape_t{};
  for (int k = 0; k < rank; ++k) {
    if (red[k]) summed[product_axis[k]] = true;
    if (!red[k])
      s.shape.push_back(n.shape[k]);
    else if (spec.keepdims)
      s.shape.push_back(1);
  }
  for (int p = 0; p < n.product.size(); ++p)
    if (summed[p]) s.sum.axes[s.sum.naxes++] = p;
  return s;
}

matmul_node transposed(const matmul_node& n) {
  if (n.shape.size() <= 1) return n;  // numpy: .T of a 0-d or 1-d array is itself
  if (n.summed || n.a.ndim() != 2 || n.b.ndim() != 2)
    throw value_error(
        "jetfuse: jf::transpose of a batched or summed matmul is not supported yet; transpose the "
        "evaluated array (jf::array<T>(...).transpose(), a view)");
  matmul_node t = make_matmul_node(transpose(n.b, shape_t{}), transpose(n.a, shape_t{}));
  t.steps = n.steps;  // (s * a @ b).T = s * b.T @ a.T
  return t;
}

array_base evaluate(const matmul_node& n) {
  if (!n.steps.empty() || !n.c.is_null()) {
    if (!folds(n)) throw value_error("jetfuse: internal: evaluate of a node whose steps do not fold (" + fold_refusal(n) + ")");
    gemm_terms t;
    t.alpha = combined_alpha(n);
    t.c = n.c.is_null() ? nullptr : &n.c;
    t.beta = n.c.is_null() ? 0.0 : (n.c_subtracted ? -1.0 : 1.0);
    t.shape = n.product;
    return product_value(n, t);
  }
  if (!n.summed) return product_value(n, gemm_terms{});
  if (!rewritten(n))  // batches: the product, then jetfuse's reduction of it (in the value's shape)
    return reshape(sum_over(product_value(n, gemm_terms{}), n.sum.axes, n.sum.naxes, false), n.shape);
  const array_base a = as_matrix(n.a, true), b = as_matrix(n.b, false);
  const i64 k = a.shape()[1];
  const int bits = product_axes(n);
  const int zero = 0, one = 1;
  array_base r;
  if (bits == 0) {
    r = matmul(a, b);
  } else if (bits == 1) {  // sum over the rows: sum(a, 0) @ b
    const array_base s = sum_over(a, &zero, 1, false);
    r = through_matmul(true) ? matmul(s, b) : sum_of_products(reshape(s, shape_t{k, 1}), b, 0, false);
  } else if (bits == 2) {  // sum over the columns: a @ sum(b, 1)
    const array_base t = sum_over(b, &one, 1, false);
    r = through_matmul(false) ? matmul(a, t) : sum_of_products(a, reshape(t, shape_t{1, k}), 1, false);
  } else {  // everything: sum(a, 0) . sum(b, 1)
    r = sum_of_products(sum_over(a, &zero, 1, false), sum_over(b, &one, 1, false), 0, false);
  }
  return reshape(r, n.shape);
}

array_base described(const matmul_node& n) {
  auto buf = std::make_shared<buffer>();  // no memory: jf::explain's analysis reads shape and strides only
  buf->dev = n.a.device();
  return array_base(buf, n.a.dtype(), n.shape, contiguous_strides(n.shape), 0);
}

std::string explain(const matmul_node& n, bool cuda_plan) {
  std::ostringstream os;
  const std::string product = std::string(n.dot ? "dot" : "matmul") + "(a, b) of a " + shape_text(n.a.shape()) +
                              " and b " + shape_text(n.b.shape()) + " " + std::string(name(n.a.dtype())) + " on " +
                              to_string(n.a.device());
  if (n.dot && n.a.ndim() == 1 && n.b.ndim() == 1 && !n.summed) {
    os << "jetfuse: " << product << ": sum(a * b), one fused multiply-reduction\n";
    if (!n.steps.empty()) os << "  then element-wise (numpy's order):" << steps_text(n) << "\n";
    if (!n.c.is_null()) os << "  then " << (n.c_subtracted ? "- c" : "+ c") << " element-wise\n";
    os << explain_sum_of_products(n.a, n.b, 0, false, cuda_plan);
    return os.str();
  }
  if (!n.steps.empty() || !n.c.is_null()) {
    const std::string why = fold_refusal(n);
    const std::string c = n.c.is_null() ? "" : " c " + shape_text(n.c.shape());
    if (why.empty()) {
      os << "jetfuse: " << product << ", evaluated first into a new " << shape_text(n.shape) << " array\n"
         << "  rewritten as one gemm: alpha = " << combined_alpha(n) << " (the scalar steps" << steps_text(n)
         << " folded into the product)";
      if (!n.c.is_null())
        os << ", beta = " << (n.c_subtracted ? -1 : 1) << " (" << c.substr(1)
           << " copied into the result's buffer, broadcast, then added by the gemm)";
      os << "; no element-wise pass (exact in real arithmetic; rounding: docs/design.md \"Matrix products\")\n";
      return os.str();
    }
    os << "jetfuse: the scalar steps / addend of " << product << " are not rewritten into gemm's alpha / beta (" << why
       << "): the value below, then element-wise in numpy's order:"
       << steps_text(n) << (n.c.is_null() ? "" : (n.c_subtracted ? ", -" : ", +") + c) << "\n";
    return os.str() + explain(bare(n), cuda_plan);
  }
  const std::string backend =
      n.a.device().kind == device_kind::cuda && is_floating(n.a.dtype())
          ? "cuBLAS gemm"
          : (n.a.device().kind == device_kind::cuda ? "the exact integer kernel" : "the CPU's blocked loop");
  if (!n.summed) {
    os << "jetfuse: " << product << ", evaluated first (" << backend << ") into a new " << shape_text(n.shape)
       << " array\n";
    return os.str();
  }
  const std::string call = "sum(" + product + (axes_text(n).empty() ? "" : ", " + axes_text(n)) + ")";
  if (!rewritten(n)) {
    os << "jetfuse: " << call << ": not rewritten ("
       << (is_floating(n.a.dtype()) ? "batched operands" : "integer products wrap before the sum") << "): the product ("
       << backend << "), then one fused reduction into " << shape_text(n.shape) << "\n";
    return os.str();
  }
  const int bits = product_axes(n);
  const array_base a = as_matrix(n.a, true), b = as_matrix(n.b, false);
  const int zero = 0, one = 1;
  const bool blas = through_matmul(bits == 1);
  os << "jetfuse: " << call << "\n";
  if (bits == 0) {
    os << "  rewrite: none (no axis summed): the product (" << backend << ")\n";
    return os.str();
  }
  if (bits == 1)
    os << "  rewritten as matmul(sum(a, axis=0), b): step 1 the column sums of a (a fused reduction), step 2 "
       << (blas ? "the vector-matrix product (" + backend + ")"
                : std::string("sum(s[:, None] * b, axis=0) (a fused multiply-reduction)"));
  else if (bits == 2)
    os << "  rewritten as matmul(a, sum(b, axis=1)): step 1 the row sums of b (a fused reduction), step 2 "
       << (blas ? "the matrix-vector product (" + backend + ")"
                : std::string("sum(a * t[None, :], axis=1) (a fused multiply-reduction)"));
  else
    os << "  rewritten as dot(sum(a, axis=0), sum(b, axis=1)): the column sums of a, the row sums of b (fused "
          "reductions), then sum(s * t) (a fused multiply-reduction)";
  os << "; no " << shape_text(shape_t{a.shape()[0], b.shape()[1]}) << " product is formed (exact in real arithmetic; "
     << "rounding: docs/design.md \"Matrix products\")\n";
  os << "--- step 1 ---\n"
     << (bits == 2 ? explain_sum_over(b, &one, 1, false, cuda_plan) : explain_sum_over(a, &zero, 1, false, cuda_plan));
  return os.str();
}

}  // namespace jf::detail
