// Random numbers as leaves of fused expressions (jf::random): a counter-based generator is a pure
// function of (key, position), so a leaf is not an array but values a kernel computes where they
// are used. `4 * jf::mean(jf::square(u1) + jf::square(u2) < 1)` reads and writes nothing but one
// number. Two generators with one interface: jf::random::philox is numpy's Philox
// (`jf::random::philox gen(k); gen.random<double>({n})` gives the bits of numpy's
// `Generator(Philox(key=k)).random(n)`, on every backend, fused or not); jf::random::philox4x32 is
// Random123's Philox4x32-10 (cuRAND's and PyTorch's CUDA generator), about twice as fast on a GPU,
// whose numbers no numpy generator draws.
#pragma once

#include <cstdint>
#include <type_traits>

#include "jetfuse/eval.hpp"
#include "jetfuse/expr/take.hpp"
#include "jetfuse/sorting.hpp"

namespace jf {
namespace detail {

// A leaf's value: a virtual array whose buffer generates its elements (buffer_source) instead of
// holding memory. The engine binds it as an operand that kernels compute, never load.
template <class T> struct random_leaf {
  array_base view;
};
array_base generated_array(device dev, dtype t, const shape_t& shape, buffer_source source, bit_generator bits,
                           std::uint64_t key_low, std::uint64_t key_high, std::uint64_t first, std::uint64_t aux);

template <class T> struct tree<term<random_leaf<T>>> {
  template <dtype Target>
  static void gather(const term<random_leaf<T>>& e, const array_base** arrays, scalar_slot*, reduce_spec*, scalar_use) {
    *arrays = &e.elements[hana::llong_c<0>].view;
  }
};
template <class T> struct lower_type<term<random_leaf<T>>> {
  static ir::node_id run(ir::graph& g, const lowering_inputs& in, lower_cursor& c, dtype) {
    return lower_input(g, in, c.ai++, c.region, c.regions, *c.input_nodes, dtype_v<T>);
  }
};
template <class T> struct program_of<term<random_leaf<T>>> {
  static constexpr std::array<prog_entry, 1> value{{{prog_entry::array, 0}}};
};

}  // namespace detail

template <class T> struct type_of_impl<term<detail::random_leaf<T>>> {
  static constexpr operand_type value = strong(dtype_v<T>);
};
template <class T> struct leaf_counts<term<detail::random_leaf<T>>> {
  static constexpr int arrays = 1, scalars = 0, reductions = 0, nest_only = 1;
};

namespace random {

// A counter-based bit generator's 64-bit outputs q = 0, 1, ... and jetfuse's leaves drawn from
// them (philox, philox4x32 below; Bits says which). Each leaf takes the next positions, as numpy's
// Generator draws: after `a = gen.random({n})`, `b = gen.random({m})`, the values of a and b are
// those of `g.random(n)` and `g.random(m)` called in that order (float32 draws use the two halves
// of a 64-bit output, the high half kept for the next float32 draw, as numpy does). Leaves are
// values, not arrays: evaluate one (jf::array<double> r = gen.random({n})) to keep it.
template <detail::bit_generator Bits> class counter_generator {
 public:
  // numpy's Generator.random(shape) (dtype float64 or float32): uniform in [0, 1).
  template <class T = double> auto random(const shape_t& shape, device dev = jf::cpu) {
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "jf::random: random<double> or random<float>");
    const auto n = static_cast<std::uint64_t>(shape.product());
    std::uint64_t first, pending = 0;
    detail::buffer_source src;
    if constexpr (std::is_same_v<T, double>) {
      src = detail::buffer_source::philox_f64;
      first = next_;
      next_ += n;
    } else {
      // 32-bit halves: a pending half (numpy's has_uint32) first, then halves 2 * next_, ...
      src = detail::buffer_source::philox_f32;
      std::uint64_t m = n;
      first = 2 * next_;
      if (pending_ && n > 0) {
        pending = pending_half_ + 1;
        first -= 1;  // element 1 is half 2 * next_
        m -= 1;
        pending_ = false;
      }
      if (m > 0) {
        const std::uint64_t end = 2 * next_ + m;
        next_ = (end + 1) / 2;
        if (end & 1) {
          pending_ = true;
          pending_half_ = end;
        }
      }
    }
    return term<detail::random_leaf<T>>{hana::tuple<detail::random_leaf<T>>(
        detail::random_leaf<T>{detail::generated_array(dev, dtype_v<T>, shape, src, Bits, key_[0], key_[1], first, pending)})};
  }
  // numpy's Generator.uniform(low, high, shape): low + (high - low) * random (float64; with
  // T = float the same arithmetic in float32, which numpy does not have).
  template <class T = double> auto uniform(const shape_t& shape, double low, double high, device dev = jf::cpu) {
    return low + (high - low) * random<T>(shape, dev);
  }

  // Normal draws (numpy's Generator.normal(loc, scale, shape)): loc + scale * z with z from
  // Box-Muller on pairs of draws (scalar_ops.hpp: jf_philox_to_normal_f64/f32), NOT numpy's
  // ziggurat (sequential, so no kernel can compute an element alone): the same distribution, other
  // numbers. A float64 leaf starts at an even output (one is skipped if need be) and takes n
  // outputs rounded up to even; a float32 leaf takes both halves of ceil(n / 2) outputs (a kept
  // float32 half stays for the next random<float>).
  template <class T = double> auto normal(const shape_t& shape, double loc = 0.0, double scale = 1.0, device dev = jf::cpu) {
    static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>, "jf::random: normal<double> or normal<float>");
    if (!(scale >= 0)) throw value_error("jf::random::normal: scale < 0");
    const auto n = static_cast<std::uint64_t>(shape.product());
    const std::uint64_t outputs = (n + 1) / 2;  // float32: halves of these; float64: twice these
    std::uint64_t first;
    if constexpr (std::is_same_v<T, double>) {
      next_ += next_ & 1;
      first = next_;
      next_ += 2 * outputs;
    } else {
      first = 2 * next_;
      next_ += outputs;
    }
    constexpr auto src = std::is_same_v<T, double> ? detail::buffer_source::normal_f64 : detail::buffer_source::normal_f32;
    return loc + scale * term<detail::random_leaf<T>>{hana::tuple<detail::random_leaf<T>>(
                             detail::random_leaf<T>{detail::generated_array(dev, dtype_v<T>, shape, src, Bits, key_[0], key_[1], first, 0)})};
  }

  // Integers in [low, high) (numpy's Generator.integers(low, high, shape, dtype), endpoint=False):
  // low + floor(w * (high - low) / 2^64) of one 64-bit output w per element (Lemire's multiply
  // without rejection, so any element can be computed alone; numpy rejects, sequentially: the same
  // distribution up to a relative bias below (high - low) / 2^64, other numbers).
  template <class T = std::int64_t> auto integers(const shape_t& shape, std::int64_t low, std::int64_t high, device dev = jf::cpu) {
    static_assert(std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::int32_t>,
                  "jf::random: integers<std::int64_t> or integers<std::int32_t>");
    if (low >= high) throw value_error("jf::random::integers: low >= high");
    if constexpr (std::is_same_v<T, std::int32_t>) {
      if (low < INT32_MIN || low > INT32_MAX) throw value_error("jf::random::integers: low is out of bounds for int32");
      if (high - 1 > INT32_MAX) throw value_error("jf::random::integers: high is out of bounds for int32");
    }
    const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    const std::uint64_t first = next_;
    next_ += static_cast<std::uint64_t>(shape.product());
    return static_cast<T>(low) + term<detail::random_leaf<T>>{hana::tuple<detail::random_leaf<T>>(detail::random_leaf<T>{
                                     detail::generated_array(dev, dtype_v<T>, shape, detail::buffer_source::integers, Bits,
                                                             key_[0], key_[1], first, range)})};
  }

  // numpy's Generator.permutation(n): the numbers 0 .. n-1 (int64) in a random order (n <= 0:
  // empty, as numpy 2.4). Drawn as the stable argsort of n random 63-bit keys (one output each),
  // so any backend computes it in parallel and both give the same permutation for the same key;
  // not numpy's Fisher-Yates numbers. Two keys tie with probability below n^2 / 2^64 (about 1e-3
  // for n = 2^27): tied positions then keep their order.
  array<std::int64_t> permutation(std::int64_t n, device dev = jf::cpu) {
    if (n <= 0) return empty<std::int64_t>(shape_t{0}, dev);
    return jf::argsort(integers<std::int64_t>({n}, 0, INT64_MAX, dev));
  }
  // numpy's Generator.permutation(x, axis): a copy of x with its slices along `axis` in a random
  // order (numpy's AxisError for a bad axis, a 0-d x included).
  template <class T> array<T> permutation(const array<T>& x, int axis = 0) {
    const int ax = detail::take_axis(axis, x.ndim());
    return array<T>(jf::take(x, permutation(x.shape()[ax], x.device()), ax));
  }
  // numpy's Generator.shuffle(x, axis): x's slices along `axis` reordered in place (every handle
  // and view of x sees it); numpy raises TypeError for a 0-d x, jetfuse jf::axis_error.
  template <class T> void shuffle(array<T>& x, int axis = 0) {
    const int ax = detail::take_axis(axis, x.ndim());
    x = jf::take(x, permutation(x.shape()[ax], x.device()), ax);  // x read before it is written (staged)
  }

  // The next 64-bit output a float64 draw would take (philox: numpy's state.buffer_pos + 4 * counter).
  std::uint64_t position() const { return next_; }

 protected:
  counter_generator(std::uint64_t key0, std::uint64_t key1) : key_{key0, key1} {}

 private:
  std::uint64_t key_[2];
  std::uint64_t next_ = 0;          // the next 64-bit output
  bool pending_ = false;            // a high half is the next float32 draw (numpy's has_uint32)
  std::uint64_t pending_half_ = 0;  // its index (2 * output + 1)
};

// numpy's Philox bit generator with a 128-bit key (numpy.random.Philox(key=key_high * 2**64 +
// key), counter 0): random and uniform give numpy's Generator's bits (float64 and float32).
class philox : public counter_generator<detail::bit_generator::philox4x64> {
 public:
  explicit philox(std::uint64_t key, std::uint64_t key_high = 0) : counter_generator(key, key_high) {}
};

// Random123's Philox4x32-10 (philox4x32_10; the generator of cuRAND's and PyTorch's CUDA RNG) with
// key (seed mod 2^32, seed / 2^32): its rounds multiply 32 x 32 -> 64 bits (one GPU instruction)
// where Philox4x64-10's multiply 64 x 64 -> 128 bits (four), about half the work per random bit:
// faster where the rounds bound a kernel (Monte Carlo over leaves, filling arrays on a GPU). Not numpy's stream (numpy has no
// Philox4x32): use philox where numbers must match numpy's. Output q is words 2r, 2r + 1 (r = q %
// 2, low word first) of the block of counter (c mod 2^32, c / 2^32, 0, 0), c = q / 2; the leaves
// take and convert outputs exactly as philox's do (docs/design.md, "Random numbers as leaves").
class philox4x32 : public counter_generator<detail::bit_generator::philox4x32> {
 public:
  explicit philox4x32(std::uint64_t seed) : counter_generator(seed & 0xffffffffu, seed >> 32) {}
};

}  // namespace random
}  // namespace jf
