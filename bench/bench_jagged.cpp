// Expressions over jagged arrays through the front end (issue 10's workloads): per-list sum and
// max of 10M lists of Poisson(2) float32 lengths, the five-operation pipeline
// max(sqrt(x * x * 2 + met) - 1, -1) (one kernel), and the same on a long-tailed distribution
// (0.5 % of the lists hold 64 elements); each as a fraction of a device copy in the same run,
// counting the offsets, the content (and met) read once and the per-list results written.
// With JF_JAGGED_DATA=<dir> the lists are read from <dir>/{poisson,tail}_{offsets,content}.bin,
// written by bench/peers_jagged.py, so that Awkward runs on the same data.
//
//   ./build/cuda/bench/bench_jagged --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "jetfuse/jetfuse.hpp"
#include "timed_batches.hpp"

namespace {

using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr std::int64_t lists = 10'000'000;
double copy_gbps = 0;

template <class T> std::vector<T> read_file(const std::string& path) {
  std::vector<T> v;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fseek(f, 0, SEEK_END);
    v.resize(static_cast<std::size_t>(std::ftell(f)) / sizeof(T));
    std::fseek(f, 0, SEEK_SET);
    if (std::fread(v.data(), sizeof(T), v.size(), f) != v.size()) v.clear();
    std::fclose(f);
  }
  return v;
}

struct dataset {
  jf::jagged<float> x;
  jf::array<float> met;
  dataset(bool tail) {
    const char* dir = std::getenv("JF_JAGGED_DATA");
    const std::string name = tail ? "tail" : "poisson";
    std::vector<std::int64_t> off;
    std::vector<float> content;
    if (dir) {
      off = read_file<std::int64_t>(std::string(dir) + "/" + name + "_offsets.bin");
      content = read_file<float>(std::string(dir) + "/" + name + "_content.bin");
    }
    if (off.empty()) {  // generated here
      std::mt19937_64 rng(tail ? 2 : 1);
      std::poisson_distribution<int> len(2.0);
      std::bernoulli_distribution heavy(0.005);
      off.assign(1, 0);
      for (std::int64_t i = 0; i < lists; ++i) off.push_back(off.back() + (tail && heavy(rng) ? 64 : len(rng)));
      std::uniform_real_distribution<float> v(0, 100);
      content.resize(static_cast<std::size_t>(off.back()));
      for (float& c : content) c = v(rng);
    }
    const auto n = static_cast<std::int64_t>(off.size()) - 1;
    x = jf::jagged<float>(jf::array<std::int64_t>(off, jf::cuda), jf::array<float>(content, jf::cuda));
    met = jf::arange<float>(0, static_cast<float>(n), 1, jf::cuda) * 0.001f;
  }
  double bytes(bool with_met) const {
    const double n = static_cast<double>(x.size());
    return 8.0 * (n + 1) + 4.0 * static_cast<double>(x.content().size()) + (with_met ? 4.0 * n : 0.0) + 4.0 * n;
  }
};
// The host's time per call, enqueueing 10 calls without synchronising (the front end's own work:
// analysis, variant lookup, allocation, launch): a row is host-bound when it reaches the row's time.
template <class F> void report_host_time(benchmark::State& state, F&& call) {
  jf::synchronize();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) call();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  jf::synchronize();
  state.counters["host_us"] = s / 10 * 1e6;
}

dataset& get(bool tail) {
  static dataset poisson(false), longtail(true);
  return tail ? longtail : poisson;
}

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  const std::int64_t n = std::int64_t(1) << 27;
  jf::array<double> a = jf::zeros<double>({n}, jf::cuda), b = jf::zeros<double>({n}, jf::cuda);
  copy_gbps = jf_bench::copy_roof(state, b.raw_data(), a.raw_data(), static_cast<std::size_t>(n * 8));
}

void BM_ListSum(benchmark::State& state) {
  if (!need_gpu(state)) return;
  dataset& d = get(state.range(0) != 0);
  jf::array<float> out;
  auto call = [&] { out = jf::sum(d.x, -1); };
  timed_batches(state, 10, call);
  report_host_time(state, call);
  jf_bench::report_bandwidth(state, d.bytes(false), copy_gbps);
}
void BM_ListMax(benchmark::State& state) {
  if (!need_gpu(state)) return;
  dataset& d = get(state.range(0) != 0);
  jf::option_array<float> out;
  auto call = [&] { out = jf::max(d.x, -1); };
  timed_batches(state, 10, call);
  report_host_time(state, call);
  jf_bench::report_bandwidth(state, d.bytes(false) + static_cast<double>(d.x.size()), copy_gbps);
}
void BM_ListSumOfExpression(benchmark::State& state) {  // Awkward's ak.sum(x * 2 + 1, axis=-1)
  if (!need_gpu(state)) return;
  dataset& d = get(state.range(0) != 0);
  jf::array<float> out;
  auto call = [&] { out = jf::sum(d.x * 2 + 1, -1); };
  timed_batches(state, 10, call);
  report_host_time(state, call);
  jf_bench::report_bandwidth(state, d.bytes(false), copy_gbps);
}
void BM_FiveOperationPipeline(benchmark::State& state) {
  if (!need_gpu(state)) return;
  dataset& d = get(state.range(0) != 0);
  jf::option_array<float> out;
  const std::uint64_t before = jf::stats().launches;
  auto call = [&] { out = jf::max(jf::sqrt(d.x * d.x * 2 + d.met) - 1, -1); };
  timed_batches(state, 10, call);
  const std::uint64_t after = jf::stats().launches;
  report_host_time(state, call);
  jf_bench::report_bandwidth(state, d.bytes(true) + static_cast<double>(d.x.size()), copy_gbps);
  state.counters["kernels/call"] =
      static_cast<double>(after - before) / static_cast<double>(state.iterations() * 10 + 1);
}

// Fixed iterations (20 batches of 10 calls): Google Benchmark's own choice ran each row for ~8 s,
// 77 s of the GPU table's run for nine rows.
BENCHMARK(BM_CopyRoof)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(10);
BENCHMARK(BM_ListSum)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);
BENCHMARK(BM_ListMax)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);
BENCHMARK(BM_ListSumOfExpression)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);
BENCHMARK(BM_FiveOperationPipeline)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
