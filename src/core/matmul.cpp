// numpy.matmul (matmul.hpp): numpy's checks and messages, 1-d operands promoted to matrices, the
// batch axes broadcast and flattened into one uniformly strided batch (copied only where the
// strides do not allow it), then a backend (core/matmul_backends.hpp) multiplies; with gemm terms
// (matmul_node.cpp's alpha / beta rewrites) the addend is first copied (broadcast) into the result.
#include <climits>
#include <cstdint>
#include <string>

#include "core/matmul_backends.hpp"
#include "jetfuse/detail/matmul_node.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/views.hpp"

namespace jf::detail {

namespace {

using i64 = std::int64_t;

constexpr const char* signature = "(n?,k),(k,m?)->(n?,m?)";

std::string compact(const shape_t& s) {  // numpy's shape in its broadcast messages: (2,3) or (3,)
  std::string out = "(";
  for (int i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// numpy's remapped operand in a broadcast message: the batch axes, then newaxis per core axis.
std::string remapped(const array_base& a) {
  std::string out = "(";
  for (int i = 0; i < a.ndim(); ++i)
    out += (i ? "," : "") + (i < a.ndim() - 2 ? std::to_string(a.shape()[i]) : "newaxis");
  return out + ")";
}

// The batch axes of a (all but the last two) and b broadcast (numpy's rules).
shape_t batch_shape(const array_base& a, const array_base& b, i64 n, i64 m) {
  const int na = a.ndim() - 2, nb = b.ndim() - 2, nd = na > nb ? na : nb;
  shape_t out = shape_t::of_rank(nd);
  for (int i = 0; i < nd; ++i) {
    const int ia = i - (nd - na), ib = i - (nd - nb);
    const i64 ea = ia >= 0 ? a.shape()[ia] : 1, eb = ib >= 0 ? b.shape()[ib] : 1;
    if (ea != eb && ea != 1 && eb != 1)
      throw shape_error("operands could not be broadcast together with remapped shapes [original->remapped]: " +
                        compact(a.shape()) + "->" + remapped(a) + " " + compact(b.shape()) + "->" + remapped(b) +
                        "  and requested shape (" + std::to_string(n) + "," + std::to_string(m) + ")");
    out[i] = ea == 1 ? eb : ea;
  }
  return out;
}

// Whether a rows x cols matrix with these strides is a BLAS matrix: row-major (unit column stride,
// row stride >= cols) or column-major (unit row stride, column stride >= rows). The strides of
// axes of extent 1 are never used: they are set to make the layout valid where possible.
bool blas_layout(i64 rows, i64 cols, i64& rs, i64& cs) {
  if (cols == 1) {
    cs = 1;
    if (rows == 1) rs = 1;  // else rs must be >= 1, a leading dimension >= cols
    return rs >= 1;
  }
  if (rows == 1) {
    if (cs == 1)
      rs = cols;
    else if (cs >= 1)
      rs = 1;  // column-major, leading dimension cs >= rows
    return cs >= 1;
  }
  return (cs == 1 && rs >= cols) || (rs == 1 && cs >= rows);
}

// batch followed by the core extents (rows, cols), each kept or left out.
shape_t with_core(const shape_t& batch, const i64 (&core)[2], bool rows = true, bool cols = true) {
  shape_t s = shape_t::of_rank(batch.size() + rows + cols);
  for (int i = 0; i < batch.size(); ++i) s[i] = batch[i];
  int d = batch.size();
  if (rows) s[d++] = core[0];
  if (cols) s[d] = core[1];
  return s;
}

array_base contiguous_copy(const array_base& x) {
  array_base c = make_array(x.device(), x.dtype(), x.shape());
  assign(c, x);
  return c;
}

// x: batch axes then (rows, cols). The operand with its batch axes as one uniformly strided axis
// (stride 0 for a broadcast one); x is copied contiguous first where that is not possible, or
// where `blas` asks for a unit row or column stride with a valid leading dimension.
matmul_impl::operand flattened(array_base& x, bool blas) {
  const int nb = x.ndim() - 2;
  const i64 rows = x.shape()[nb], cols = x.shape()[nb + 1];
  const auto uniform = [&](i64& stride) {
    // Offset of flat batch index f must be f * stride: every axis > 1 long has stride *
    // (product of the extents after it), and all such axes agree on `stride`.
    bool first = true;
    i64 inner = 1;
    for (int d = nb - 1; d >= 0; --d) {
      const i64 e = x.shape()[d], s = x.strides()[d];
      if (e != 1) {
        if (first) {
          if (s % inner != 0) return false;
          stride = s / inner;
          first = false;
        } else if (s != stride * inner) {
          return false;
        }
      }
      inner *= e;
    }
    if (first) stride = 0;
    return stride >= 0;
  };
  i64 bs = 0, rs = x.strides()[nb], cs = x.strides()[nb + 1];
  if (!uniform(bs) || (blas && !blas_layout(rows, cols, rs, cs))) {
    x = contiguous_copy(x);
    uniform(bs);  // true: a contiguous array's batch is uniform
    rs = x.strides()[nb];
    cs = x.strides()[nb + 1];
    if (blas) blas_layout(rows, cols, rs, cs);
  }
  return {detail::address_of(x), bs, rs, cs};
}

// numpy's checks of a @ b and the shapes they give (shared by matmul and make_matmul_node).
struct checked_product {
  array_base a2, b2;  // 1-d operands as (1, k) / (k, 1) views
  i64 n = 0, k = 0, m = 0;
  shape_t batch, result;  // result: numpy's shape (the axes of 1-d operands removed)
};

checked_product check_product(const array_base& a, const array_base& b) {
  if (a.is_null() || b.is_null()) throw value_error("jf::matmul: an operand is a null handle (default-constructed)");
  for (int i = 0; i < 2; ++i)
    if ((i ? b : a).ndim() == 0)
      throw value_error("matmul: Input operand " + std::to_string(i) +
                        " does not have enough dimensions (has 0, gufunc core with signature " + signature +
                        " requires 1)");
  if (a.device() != b.device())
    throw backend_mismatch("jf::matmul: the operands are on " + to_string(a.device()) + " and " +
                           to_string(b.device()) + "; move one with jf::to_backend first");
  if (a.dtype() != b.dtype()) throw dtype_error("jf::matmul: the operands must have one dtype (matmul.hpp converts)");
  checked_product c;
  c.a2 = a.ndim() == 1 ? reshape(a, shape_t{1, a.shape()[0]}) : a;
  c.b2 = b.ndim() == 1 ? reshape(b, shape_t{b.shape()[0], 1}) : b;
  c.n = c.a2.shape()[c.a2.ndim() - 2];
  c.k = c.a2.shape()[c.a2.ndim() - 1];
  const i64 kb = c.b2.shape()[c.b2.ndim() - 2];
  c.m = c.b2.shape()[c.b2.ndim() - 1];
  if (kb != c.k)
    throw shape_error(
        std::string("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature ") +
        signature + " (size " + std::to_string(kb) + " is different from " + std::to_string(c.k) + ")");
  c.batch = batch_shape(c.a2, c.b2, c.n, c.m);
  c.result = with_core(c.batch, {c.n, c.m}, a.ndim() > 1, b.ndim() > 1);
  return c;
}

}  // namespace

shape_t matmul_shape(const array_base& a, const array_base& b) { return check_product(a, b).result; }

array_base matmul(const array_base& a, const array_base& b) { return matmul(a, b, gemm_terms{}); }

array_base matmul(const array_base& a, const array_base& b, const gemm_terms& t) {
  const checked_product c = check_product(a, b);
  const array_base &a2 = c.a2, &b2 = c.b2;
  const i64 n = c.n, k = c.k, m = c.m;
  const shape_t& batch = c.batch;
  const shape_t& result = c.result;

  const shape_t full = with_core(batch, {n, m});
  const array_base out = make_array(a.device(), a.dtype(), full);
  const bool terms = t.alpha != 1 || t.beta != 0;
  if (terms && (!is_floating(a.dtype()) || out.size() == 0 || k == 0))
    throw value_error("jetfuse: internal: gemm terms for an integer, empty or k = 0 product (matmul_node.cpp's folds)");
  if (out.size() == 0) return reshape(out, result);
  if (k == 0) {  // an empty sum: zeros (false for bool)
    const double zero[1] = {0.0};
    return fill(a.device(), a.dtype(), result, zero);
  }
  array_base av = broadcast_to(a2, with_core(batch, {n, k})), bv = broadcast_to(b2, with_core(batch, {k, m}));
  const bool on_gpu = a.device().kind == device_kind::cuda;
  const bool blas = on_gpu && is_floating(a.dtype());
  matmul_impl::problem p;
  p.t = a.dtype();
  p.batch = batch.product();
  p.m = n;
  p.n = m;
  p.k = k;
  p.a = flattened(av, blas);
  p.b = flattened(bv, blas);
  p.c = detail::address_of(out);
  p.alpha = t.alpha;
  p.beta = t.beta;
  if (t.beta != 0) {  // beta's addend: broadcast into the result's buffer, which the gemm then reads
    if (!t.c) throw value_error("jetfuse: internal: beta without its addend");
    assign(reshape(out, t.shape), *t.c);
  }
  if (on_gpu && (p.batch > INT_MAX || n > INT_MAX || m > INT_MAX || k > INT_MAX))
    throw value_error(
        "jf::matmul: jf::cuda multiplies matrices and batches of at most 2^31 - 1 rows, columns and "
        "matrices");
  if (on_gpu)
    matmul_impl::cuda_gemm(p);
  else
    matmul_impl::cpu_gemm(p);
  return reshape(out, result);
}

}  // namespace jf::detail
