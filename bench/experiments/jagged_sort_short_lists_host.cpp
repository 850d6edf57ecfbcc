// The jetfuse half of jagged_sort_short_lists.cu (built by g++: the front end's headers stay out of nvcc).
#include <jetfuse/jetfuse.hpp>
#include <limits>
#include <random>
#include <vector>

#include "cuda/runtime.hpp"

namespace {
jf::jagged<float> x;
jf::jagged<float> sorted;
jf::jagged<std::int64_t> order;
}  // namespace

// bench_sort's lists: `lists` Poisson(2) lengths (std::mt19937_64(7)), uniform float32 content from
// jf::random::philox(8), with NaNs, -0.0 and +0.0 written into every 97th element (the orders of
// equal keys and of NaNs are the points of a stable sort in Awkward's order). Returns the count.
long long jls_make(long long lists, long long* longest) {
  std::mt19937_64 rng(7);
  std::poisson_distribution<long long> length(2.0);
  std::vector<long long> off{0};
  long long most = 0;
  for (long long i = 0; i < lists; ++i) {
    const long long len = length(rng);
    most = std::max(most, len);
    off.push_back(off.back() + len);
  }
  const jf::array<float> r =
      jf::random::philox(8).random<float>({off.back()}, jf::cpu);  // the same stream on both backends
  std::vector<float> v = r.to_vector();
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f,
                            -std::numeric_limits<float>::quiet_NaN()};
  for (std::size_t i = 0; i < v.size(); i += 97) v[i] = specials[(i / 97) % 4];
  x = jf::jagged<float>(jf::array<std::int64_t>(std::vector<std::int64_t>(off.begin(), off.end()), jf::cuda),
                        jf::array<float>(v, jf::cuda));
  *longest = most;
  return off.back();
}
const long long* jls_offsets() { return static_cast<const long long*>(x.offsets().raw_data()); }
const float* jls_content() { return static_cast<const float*>(x.content().raw_data()); }
void jls_sort(bool ascending) {
  sorted = jf::sort(x, -1, ascending ? jf::sort_order::ascending : jf::sort_order::descending);
}
const float* jls_sorted() { return static_cast<const float*>(sorted.content().raw_data()); }
void jls_argsort() { order = jf::argsort(x); }
const long long* jls_order() { return static_cast<const long long*>(order.content().raw_data()); }
void* jls_stream() { return jf::cuda_rt::current_stream(); }
void jls_sync() { jf::synchronize(); }
