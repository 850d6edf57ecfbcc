// numpy.einsum (einsum.hpp) as a sequence of views and matrix products: numpy's parsing and
// messages; per operand its repeated subscripts taken as diagonal views and its extents of 1
// broadcast (stride 0); every subscript that only one operand holds and the output does not is
// summed out first (one fused reduction of jetfuse's engine), then operands are contracted two at a time,
// the pair with the smallest result first (opt_einsum's greedy order), each as one batched
// jf::matmul of two transposed views; the last operand is put in the output's order and copied.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "jetfuse/array.hpp"
#include "jetfuse/detail/matmul_node.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail {

namespace {

using i64 = std::int64_t;

// An operand with one letter per axis (no letter twice).
struct term {
  array_base a;
  std::string letters;
};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

array_base view(const array_base& a, const shape_t& shape, const strides_t& strides) {
  return array_base(a.buffer(), a.dtype(), shape, strides, a.offset());
}

// Axes of t in the order of `letters` (each a letter of t).
array_base transposed(const term& t, const std::string& letters) {
  shape_t axes;
  for (char c : letters) axes.push_back(static_cast<i64>(t.letters.find(c)));
  return transpose(t.a, axes);
}

i64 extent_product(const term& t, const std::string& letters) {
  i64 p = 1;
  for (char c : letters) p *= t.a.shape()[static_cast<int>(t.letters.find(c))];
  return p;
}

shape_t extents_of(const term& t, const std::string& letters) {
  shape_t s;
  for (char c : letters) s.push_back(t.a.shape()[static_cast<int>(t.letters.find(c))]);
  return s;
}

// t with every letter in `drop` summed out: one fused reduction over their axes (jetfuse's own
// kernel on jf::cuda; the kept letters stay in t's order).
term sum_out(const term& t, const std::string& drop) {
  if (drop.empty()) return t;
  std::string keep;
  int axes[max_ndim] = {}, naxes = 0;
  for (std::size_t i = 0; i < t.letters.size(); ++i) {
    if (drop.find(t.letters[i]) != std::string::npos)
      axes[naxes++] = static_cast<int>(i);
    else
      keep += t.letters[i];
  }
  return {sum_over(t.a, axes, naxes, false), keep};
}

// Letters of t that no other operand and not the output hold.
std::string private_letters(const term& t, const std::vector<term>& all, std::size_t self, const std::string& out) {
  std::string r;
  for (char c : t.letters) {
    bool elsewhere = out.find(c) != std::string::npos;
    for (std::size_t k = 0; k < all.size() && !elsewhere; ++k)
      elsewhere = k != self && all[k].letters.find(c) != std::string::npos;
    if (!elsewhere) r += c;
  }
  return r;
}

// The letters a contraction of a and b keeps: those the output or another operand holds.
std::string kept_letters(const std::vector<term>& all, std::size_t i, std::size_t j, const std::string& out) {
  std::string r;
  auto consider = [&](char c) {
    if (r.find(c) != std::string::npos) return;
    bool keep = out.find(c) != std::string::npos;
    for (std::size_t k = 0; k < all.size() && !keep; ++k)
      keep = k != i && k != j && all[k].letters.find(c) != std::string::npos;
    if (keep) r += c;
  };
  for (char c : all[i].letters) consider(c);
  for (char c : all[j].letters) consider(c);
  return r;
}

// a and b contracted over their common letters not kept: one batched matmul of
// (batch, a's own, common) by (batch, common, b's own).
term contract(const term& a, const term& b, const std::string& kept) {
  std::string batch, common, own_a, own_b;
  for (char c : a.letters) {
    const bool in_b = b.letters.find(c) != std::string::npos, keep = kept.find(c) != std::string::npos;
    (in_b ? (keep ? batch : common) : own_a) += c;
  }
  for (char c : b.letters)
    if (a.letters.find(c) == std::string::npos) own_b += c;
  const i64 nb = extent_product(a, batch), nc = extent_product(a, common);
  const array_base x = reshape(transposed(a, batch + own_a + common), shape_t{nb, extent_product(a, own_a), nc});
  const array_base y = reshape(transposed(b, batch + common + own_b), shape_t{nb, nc, extent_product(b, own_b)});
  shape_t s = extents_of(a, batch + own_a);
  for (i64 e : extents_of(b, own_b)) s.push_back(e);
  const i64 na = x.shape()[1], mb = y.shape()[2];
  if (nb == 1 && (na == 1 || mb == 1) && is_floating(x.dtype()) && !product_through_matmul(na == 1)) {
    // A vector times a matrix as one fused multiply-reduction that reads the matrix once (where the
    // route says so: matmul_node.hpp).
    const array_base r = na == 1 ? sum_of_products(reshape(x, shape_t{nc, 1}), reshape(y, shape_t{nc, mb}), 0, false)
                                 : sum_of_products(reshape(x, shape_t{na, nc}), reshape(y, shape_t{1, nc}), 1, false);
    return {reshape(r, s), batch + own_a + own_b};
  }
  return {reshape(matmul(x, y), s), batch + own_a + own_b};
}

}  // namespace

array_base einsum(const std::string& subscripts, const std::vector<array_base>& operands) {
  // numpy's parsing: terms separated by ',', an optional '->' and the output's letters.
  const std::size_t arrow = subscripts.find("->");
  const std::string inputs = subscripts.substr(0, arrow);
  std::vector<std::string> terms(1);
  for (char c : inputs) {
    if (c == ',')
      terms.emplace_back();
    else if (c == ' ')
      continue;
    else if (c == '.')
      throw value_error("jetfuse: einsum with '...' (broadcasting an ellipsis) is not supported yet");
    else if (!is_letter(c))
      throw value_error(std::string("invalid subscript '") + c +
                        "' in einstein sum subscripts string, subscripts must be letters");
    else
      terms.back() += c;
  }
  if (terms.size() != operands.size())  // numpy's words, which name the two cases the other way round
    throw value_error(terms.size() > operands.size()
                          ? "more operands provided to einstein sum function than specified in the subscripts string"
                          : "fewer operands provided to einstein sum function than specified in the subscripts string");
  std::string out;
  if (arrow != std::string::npos) {
    for (char c : subscripts.substr(arrow + 2)) {
      if (c == ' ') continue;
      if (c == '.') throw value_error("jetfuse: einsum with '...' (broadcasting an ellipsis) is not supported yet");
      if (!is_letter(c))
        throw value_error(std::string("invalid subscript '") + c +
                          "' in einstein sum subscripts string, subscripts must be letters");
      if (out.find(c) != std::string::npos)
        throw value_error(std::string("einstein sum subscripts string includes output subscript '") + c +
                          "' multiple times");
      if (inputs.find(c) == std::string::npos)
        throw value_error(std::string("einstein sum subscripts string included output subscript '") + c +
                          "' which never appeared in an input");
      out += c;
    }
  } else {  // implicit: the letters that appear once, in ASCII order (numpy's)
    for (char c = 'A'; c <= 'z'; ++c)
      if (is_letter(c) && std::count(inputs.begin(), inputs.end(), c) == 1) out += c;
  }

  // Each operand with one letter per axis: repeated letters as diagonal views.
  std::vector<term> ts;
  for (std::size_t k = 0; k < operands.size(); ++k) {
    const array_base& a = operands[k];
    const std::string& t = terms[k];
    if (static_cast<int>(t.size()) < a.ndim())
      throw value_error(
          "operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
          "provided to broadcast the extra dimensions.");
    if (static_cast<int>(t.size()) > a.ndim())
      throw value_error("einstein sum subscripts string contains too many subscripts for operand " + std::to_string(k));
    term r{a, ""};
    shape_t shape;
    strides_t strides;
    for (int i = 0; i < a.ndim(); ++i) {
      const std::size_t first = r.letters.find(t[static_cast<std::size_t>(i)]);
      if (first == std::string::npos) {
        r.letters += t[static_cast<std::size_t>(i)];
        shape.push_back(a.shape()[i]);
        strides.push_back(a.strides()[i]);
      } else {
        const int f = static_cast<int>(first);
        if (shape[f] != a.shape()[i])
          throw value_error("dimensions in operand " + std::to_string(k) + " for collapsing index '" +
                            t[static_cast<std::size_t>(i)] + "' don't match (" + std::to_string(shape[f]) +
                            " != " + std::to_string(a.shape()[i]) + ")");
        strides[f] += a.strides()[i];
      }
    }
    r.a = view(a, shape, strides);
    ts.push_back(r);
  }
  // Every letter's extent: equal across operands, or 1 (broadcast with stride 0).
  for (char c : inputs) {
    if (!is_letter(c)) continue;
    i64 n = 1;
    for (const term& t : ts)
      if (const std::size_t p = t.letters.find(c); p != std::string::npos && t.a.shape()[static_cast<int>(p)] != 1)
        n = t.a.shape()[static_cast<int>(p)];
    for (term& t : ts) {
      const std::size_t p = t.letters.find(c);
      if (p == std::string::npos) continue;
      const int i = static_cast<int>(p);
      if (t.a.shape()[i] == n) continue;
      if (t.a.shape()[i] != 1)
        throw shape_error(std::string("einsum: the operands' extents of subscript '") + c + "' do not match (" +
                          std::to_string(t.a.shape()[i]) + " and " + std::to_string(n) +
                          "): operands could not be broadcast together");
      shape_t s = t.a.shape();
      strides_t st = t.a.strides();
      s[i] = n;
      st[i] = 0;
      t.a = view(t.a, s, st);
    }
  }

  // Sum out what only one operand holds, then contract pairs, the smallest result first.
  for (std::size_t k = 0; k < ts.size(); ++k) ts[k] = sum_out(ts[k], private_letters(ts[k], ts, k, out));
  while (ts.size() > 1) {
    std::size_t bi = 0, bj = 1;
    i64 best = -1;
    for (std::size_t i = 0; i < ts.size(); ++i)
      for (std::size_t j = i + 1; j < ts.size(); ++j) {
        i64 size = 1;
        for (char c : kept_letters(ts, i, j, out)) {
          const term& t = ts[i].letters.find(c) != std::string::npos ? ts[i] : ts[j];
          size *= t.a.shape()[static_cast<int>(t.letters.find(c))];
        }
        if (best < 0 || size < best) best = size, bi = i, bj = j;
      }
    term c = contract(ts[bi], ts[bj], kept_letters(ts, bi, bj, out));
    ts.erase(ts.begin() + static_cast<std::ptrdiff_t>(bj));
    ts[bi] = std::move(c);
    ts[bi] = sum_out(ts[bi], private_letters(ts[bi], ts, bi, out));
  }
  // The output's order, as a new contiguous array (numpy's einsum may return a view; this never does).
  return to_backend(transposed(ts[0], out), ts[0].a.device());
}

}  // namespace jf::detail
