// jf::matmul's lazy value (detail/matmul_node.hpp) and the rewrite of a sum of a product: for 2-d
// (or 1-d) operands, sum(a @ b, 0) = sum(a, 0) @ b, sum(a @ b, 1) = a @ sum(b, 1) and
// sum(a @ b) = sum(a, 0) . sum(b, 1), each exact in real arithmetic. The sums of an operand are
// jetfuse's fused reductions (sum_reduction.cpp); the remaining vector product goes where the
// route says (matmul_node.hpp: by default cuBLAS for sum(a, 0) @ b, a fused row multiply-reduction
// for a @ sum(b, 1)). Everything else (batches; integer dtypes, which matmul.hpp never sums here)
// multiplies first and then sums.
#include "jetfuse/detail/matmul_node.hpp"

#include <atomic>
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
  return make_matmul_node(transpose(n.b, shape_t{}), transpose(n.a, shape_t{}));
}

array_base evaluate(const matmul_node& n) {
  if (!n.summed) return matmul(n.a, n.b);
  if (!rewritten(n))  // batches: the product, then jetfuse's reduction of it (in the value's shape)
    return reshape(sum_over(matmul(n.a, n.b), n.sum.axes, n.sum.naxes, false), n.shape);
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

std::string explain(const matmul_node& n) {
  std::ostringstream os;
  const std::string product = "matmul(a, b) of a " + shape_text(n.a.shape()) + " and b " + shape_text(n.b.shape()) +
                              " " + std::string(name(n.a.dtype())) + " on " + to_string(n.a.device());
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
  os << "--- step 1 ---\n" << (bits == 2 ? explain_sum_over(b, &one, 1, false) : explain_sum_over(a, &zero, 1, false));
  return os.str();
}

}  // namespace jf::detail
