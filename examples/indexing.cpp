// Gathers that check their bounds, the seed "Python on GPUs" example: CuPy's
// array[cp.array([2, 3, 5, 6, 7, 8])] on a 6-element array silently wraps the indices 6, 7, 8 and
// returns [2.2, 3.3, 5.5, 0., 1.1, 2.2]; numpy raises IndexError. jetfuse checks every index inside
// the fused kernel and raises jf::index_error with numpy's message: on the CPU when take returns,
// on the GPU at the next synchronisation (here: printing the result), so gathers never wait.
// Then numpy's wrap/clip modes, a masked assignment, a permutation gathered and consumed in
// one kernel, take_along_axis, an index pair m[rows, cols] read and assigned, index arrays
// mixed with slices (m[:, cols] = v), three index arrays (c[i, j, k]), and the scatters' faster
// forms: a histogram by add_at with clipped bins, a permutation put with jf::unique_indices, and a
// put repeated through one index array (remembered on the GPU after its first call).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include <jetfuse/jetfuse.hpp>

int main() {
  const jf::device dev = jf::cuda_available() ? jf::cuda : jf::cpu;
  std::printf("jetfuse gathers on %s\n", jf::to_string(dev).c_str());
  const jf::array<double> array({0.0, 1.1, 2.2, 3.3, 4.4, 5.5}, dev);
  const jf::array<std::int64_t> indices({2, 3, 5, 6, 7, 8}, dev);
  bool raised = false;
  try {
    const jf::array<double> r = jf::take(array, indices);
    std::printf("took: %s (should not happen)\n", jf::detail::repr(r).c_str());
  } catch (const jf::index_error& e) {
    std::printf("jf::take(array, [2, 3, 5, 6, 7, 8]) raised jf::index_error: %s\n", e.what());
    raised = true;
  }
  std::printf("mode wrap (CuPy's behaviour, on request): %s\n",
              jf::detail::repr(jf::array<double>(jf::take(array, indices, jf::mode::wrap))).c_str());
  std::printf("mode clip: %s\n", jf::detail::repr(jf::array<double>(jf::take(array, indices, jf::mode::clip))).c_str());
  jf::array<double> capped = array.copy();
  capped(capped > 3.0) = 3.0;  // numpy's capped[capped > 3] = 3: one fused kernel, in place
  std::printf("capped[capped > 3] = 3: %s\n", jf::detail::repr(capped).c_str());

  // A random permutation applied and consumed in one kernel: y = sqrt(x[p] * 2 + 1).
  const std::int64_t n = dev == jf::cuda ? std::int64_t(1) << 26 : std::int64_t(1) << 20;
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(2026));
  const jf::array<std::int64_t> p(perm, dev);
  const jf::array<double> x = jf::arange<double>(0, static_cast<double>(n), 1, dev);
  auto y = jf::sqrt(jf::take(x, p) * 2.0 + 1.0);
  jf::array<double> out = y;  // the first call compiles (or loads) the kernel
  const auto t0 = std::chrono::steady_clock::now();
  out = y;
  jf::synchronize();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double expect = std::sqrt(static_cast<double>(perm[5]) * 2.0 + 1.0);
  std::printf("sqrt(x[p] * 2 + 1), p a random permutation of %lld: %.3f ms (%.0f GB/s counting x, p and y); "
              "y[5] = %.6f (expected %.6f)\n",
              static_cast<long long>(n), s * 1e3, 24.0 * static_cast<double>(n) / s * 1e-9,
              static_cast<double>(out(5)), expect);

  // numpy's take_along_axis idiom: each row's maximum, found (argmax) and read in one evaluation.
  const jf::array<double> m = jf::array<double>({3, 9, 1, 4, 4, 7, 8, 2, 6}, dev).reshape({3, 3});
  const jf::array<double> row_max = jf::take_along_axis(m, jf::argmax(m, 1, jf::keepdims), 1);
  std::printf("take_along_axis(m, argmax(m, 1, keepdims), 1) = %s\n", jf::detail::repr(row_max).c_str());
  // numpy's m[rows, cols]: one pick per (row, column) pair, each index checked along its own axis.
  const jf::array<std::int64_t> rows = jf::array<std::int64_t>({0, 2, -1}, dev),
                                cols = jf::array<std::int64_t>({1, 0, 2}, dev);
  const jf::array<double> picks = m(rows, cols) * 10;
  std::printf("m[[0, 2, -1], [1, 0, 2]] * 10 = %s\n", jf::detail::repr(picks).c_str());
  try {
    const jf::array<double> r = m(rows, cols + 1);
    std::printf("picked: %s (should not happen)\n", jf::detail::repr(r).c_str());
  } catch (const jf::index_error& e) {
    std::printf("m[rows, cols + 1] raised jf::index_error: %s\n", e.what());
  }
  // numpy's m2[rows, cols] = -1 and m2[:, [0, 2]] = [10, 20]: scatters, the indices checked first.
  jf::array<double> m2 = m.copy();
  m2(rows, cols) = -1.0;
  m2(jf::all, jf::array<std::int64_t>({0, 2}, dev)) = jf::array<double>({10, 20}, dev);
  std::printf("m2[rows, cols] = -1; m2[:, [0, 2]] = [10, 20]: %s\n", jf::detail::repr(m2).c_str());
  // m[1:, [2, 0]]: the rows sliced, the columns picked (numpy keeps the column axis in place).
  const jf::array<double> block = m(jf::range(1, jf::range::none), jf::array<std::int64_t>({2, 0}, dev));
  std::printf("m[1:, [2, 0]] = %s\n", jf::detail::repr(block).c_str());
  // m[:, m[0] > 2]: the columns whose first row exceeds 2 (a 1-d bool mask among other indices).
  const jf::array<double> wide = m(jf::all, m(0, jf::all) > 2.0);
  std::printf("m[:, m[0] > 2] = %s\n", jf::detail::repr(wide).c_str());
  // numpy's c[i, j, k] on a 2x3x4 cube, read from a transposed view of it (no copy), then assigned.
  const jf::array<double> cube = jf::arange<double>(0, 24, 1, dev).reshape({2, 3, 4});
  const jf::array<std::int64_t> ci({1, 0, -1}, dev), cj({2, 0, 1}, dev), ck({3, -1, 0}, dev);
  const jf::array<double> corners = cube.transpose({2, 1, 0})(ck, cj, ci);  // cube[ci, cj, ck]
  std::printf("cube.T[[3, -1, 0], [2, 0, 1], [1, 0, -1]] = %s\n", jf::detail::repr(corners).c_str());
  jf::array<double> cube2 = cube.copy();
  cube2(ci, cj, ck) = 0.0;
  // numpy's h[:, :, [3, 1], [4, 0]] on a 2x3x4x5 array: two index arrays after two slices.
  const jf::array<double> h = jf::arange<double>(0, 120, 1, dev).reshape({2, 3, 4, 5});
  const jf::array<std::int64_t> h2({3, 1}, dev), h3({4, 0}, dev);
  const jf::array<double> pairs = h(jf::all, jf::all, h2, h3);
  std::printf("h[:, :, [3, 1], [4, 0]] = %s\n", jf::detail::repr(pairs).c_str());
  // A histogram of 10 bins: np.add.at(counts, clip(floor(v * 10)), 1) with the bins clipped by the
  // scatter itself (jf::mode::clip: no check launch), and a scatter by a permutation promised
  // unique (JAX's unique_indices: no claims for numpy's last write).
  const jf::array<double> v({0.05, 0.15, 0.15, 0.99, 1.2, -0.3, 0.55}, dev);
  const jf::array<std::int64_t> counts = jf::zeros<std::int64_t>({10}, dev);
  jf::add_at(counts, jf::astype<std::int64_t>(jf::floor(v * 10.0)), std::int64_t{1}, jf::mode::clip);
  std::printf("add_at(counts, floor(v * 10), 1, mode=clip): %s\n", jf::detail::repr(counts).c_str());
  const jf::array<double> shuffled = jf::zeros<double>({4}, dev);
  jf::put(shuffled, jf::array<std::int64_t>({2, 0, 3, 1}, dev), jf::array<double>({10, 20, 30, 40}, dev),
          jf::unique_indices);
  std::printf("put(x, [2, 0, 3, 1], [10, 20, 30, 40], unique_indices): %s\n", jf::detail::repr(shuffled).c_str());
  // numpy's semantics without the promise, applied every step through one index array: the first
  // call checks the indices and marks the elements named (numpy's IndexError, the last write); on
  // the GPU the engine remembers what it found while nothing writes the array, and later calls
  // skip that pass (jf::stats().indices_remembered; the CPU checks every call, it costs no pass).
  const jf::array<std::int64_t> order({3, 1, 0, 2}, dev);
  const jf::array<double> state({1, 2, 3, 4}, dev);
  jf::reset_stats();
  for (int step = 0; step < 3; ++step) {
    jf::put(state, order, state * 2.0);  // state[order] = state * 2 (the values read first)
    jf::synchronize();
  }
  std::printf("3 steps of put(state, [3, 1, 0, 2], state * 2): %s, scatters through remembered indices: %llu\n",
              jf::detail::repr(state).c_str(), static_cast<unsigned long long>(jf::stats().indices_remembered));
  const std::uint64_t remembered_order = jf::stats().indices_remembered;
  // Repeated indices: the last write wins (numpy's loop). On the GPU the second call through the
  // same index array also finds which positions win, and the calls after it write only those.
  const jf::array<std::int64_t> hits({1, 3, 1, 0, 3}, dev);
  const jf::array<double> last = jf::full<double>({4}, -1.0, dev);
  jf::reset_stats();
  for (int step = 0; step < 4; ++step) {
    jf::put(last, hits, jf::array<double>({0, 1, 2, 3, 4}, dev) + 10.0 * step);
    jf::synchronize();
  }
  std::printf(
      "4 steps of put(last, [1, 3, 1, 0, 3], [0, 1, 2, 3, 4] + 10 * step): %s, through remembered indices: %llu\n",
      jf::detail::repr(last).c_str(), static_cast<unsigned long long>(jf::stats().indices_remembered));
  const bool ok =
      raised && counts.to_vector() == std::vector<std::int64_t>{2, 2, 0, 0, 0, 1, 0, 0, 0, 2} &&
      shuffled.to_vector() == std::vector<double>{20, 40, 10, 30} &&
      state.to_vector() == std::vector<double>{8, 16, 24, 32} && remembered_order == (dev == jf::cuda ? 2u : 0u) &&
      last.to_vector() == std::vector<double>{33, 32, -1, 34} &&
      jf::stats().indices_remembered == (dev == jf::cuda ? 3u : 0u) && static_cast<double>(out(5)) == expect &&
      wide.to_vector() == std::vector<double>{3, 9, 4, 4, 8, 2} &&
      corners.to_vector() == std::vector<double>{23, 3, 16} && jf::sum(cube2).item() == 276.0 - 42.0 &&
      row_max.to_vector() == std::vector<double>{9, 7, 8} && picks.to_vector() == std::vector<double>{90, 80, 60} &&
      m2.to_vector() == std::vector<double>{10, -1, 20, 10, 4, 20, 10, 2, 20} &&
      block.to_vector() == std::vector<double>{7, 4, 6, 8} && pairs.shape() == jf::shape_t{2, 3, 2} &&
      pairs.to_vector() == std::vector<double>{19, 5, 39, 25, 59, 45, 79, 65, 99, 85, 119, 105};
  std::printf("%s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
