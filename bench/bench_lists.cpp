// Jagged arrays on the GPU: the list kernel (docs/design.md, "List kernels") on 10^7 Poisson(2)
// float32 lists (2 * 10^7 elements) and on a long tail (the same plus 0.5 % lists of 64 elements
// and one list of 10^6). Rows report GB/s of the bytes read once (offsets + content, + a per-list
// value where the row reads one, + the output written where it is a content) and that as a
// fraction of a device copy measured in the same run (of_copy). The kernels come from hand-built
// graphs (tests/nest_graphs.hpp) through the same generator and launcher the engine uses.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "../tests/nest_graphs.hpp"
#include "core/step_bindings.hpp"
#include "cuda/codegen/nest_emitter.hpp"
#include "cuda/launch_nest.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/ir/codegen.hpp"
#include "timed_batches.hpp"

namespace {

namespace rt = jf::cuda_rt;
using jf_bench::need_gpu;
using jf_bench::timed_batches;

constexpr long long lists = 10000000;
double copy_gbps = 0;

struct device_buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  template <class T>
  explicit device_buffer(const std::vector<T>& h) : p(rt::allocate(h.size() * sizeof(T))), bytes(h.size() * sizeof(T)) {
    rt::copy_htod(p, h.data(), bytes);
  }
  explicit device_buffer(std::size_t n) : p(rt::allocate(n)), bytes(n) {}
};

// One distribution of list lengths: offsets, float32 content, a per-list float32 value, outputs.
struct lists_data {
  std::vector<long long> offsets;
  device_buffer *off, *x, *met, *out_lists, *out_content;
  explicit lists_data(bool tail) {
    std::mt19937_64 r(2026);
    std::poisson_distribution<long long> len(2.0);
    offsets.resize(static_cast<std::size_t>(lists + 1));
    for (long long i = 0; i < lists; ++i) {
      long long k = len(r);
      if (tail && i % 200 == 17) k = 64;
      if (tail && i == lists / 2) k = 1000000;
      offsets[static_cast<std::size_t>(i + 1)] = offsets[static_cast<std::size_t>(i)] + k;
    }
    std::vector<float> content(static_cast<std::size_t>(offsets.back())), per_list(static_cast<std::size_t>(lists));
    std::uniform_real_distribution<float> u(-3, 3);
    for (float& v : content) v = u(r);
    for (float& v : per_list) v = u(r) + 3;
    off = new device_buffer(offsets);
    x = new device_buffer(content);
    met = new device_buffer(per_list);
    out_lists = new device_buffer(static_cast<std::size_t>(lists) * 8);
    out_content = new device_buffer(content.size() * 8);
  }
  long long elements() const { return offsets.back(); }
  double offsets_and_content() const {
    return 8.0 * static_cast<double>(lists + 1) + 4.0 * static_cast<double>(elements());
  }
};
lists_data& poisson() {
  static lists_data* d = new lists_data(false);  // never freed: used until exit
  return *d;
}
lists_data& long_tail() {
  static lists_data* d = new lists_data(true);
  return *d;
}

// Times graph g on the data: inputs #0 offsets, #1 content x, #2 (when the graph has it) met per list;
// out0 over the lists or (content) over the elements.
void run_graph(benchmark::State& state, const jf::ir::graph& g, lists_data& d, bool content_output, double bytes) {
  const jf::ir::kernel_source k = jf::ir::generate_cuda(g);
  const rt::compile_options options{};
  const rt::kernel& kern = rt::get_kernel(k.name, k.source, options);
  jf::detail::step_bindings b;
  b.extents = {lists, d.elements()};
  b.inputs = {{d.off->p, {1, 0}}, {d.x->p, {0, 1}}};
  if (g.inputs.size() > 2) b.inputs.push_back({d.met->p, {1, 0}});
  b.outputs = {content_output ? jf::detail::operand_binding{d.out_content->p, {0, 1}}
                              : jf::detail::operand_binding{d.out_lists->p, {1, 0}}};
  timed_batches(state, 10, [&] { rt::launch_nest(k, kern, b); });
  jf_bench::report_bandwidth(state, bytes, copy_gbps);
  state.SetLabel(jf::ir::describe_launch(k, jf::ir::configure_launch(k, b.extents.data(), 2, rt::nest_device_limits()))
                     .substr(0, 60));
}

void BM_CopyRoof(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = poisson();
  copy_gbps = jf_bench::copy_roof(state, d.out_content->p, d.x->p, d.x->bytes);
}

template <jf::monoid M, bool Tail>
void BM_PerList(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = Tail ? long_tail() : poisson();
  run_graph(state, nest_test::list_reduce(M, jf::dtype::float32, false), d, false, d.offsets_and_content());
}

// max(sqrt(x * x * 2 + met) - 1) per list: five element-wise operations and the per-list max.
template <bool Tail>
void BM_PipelineMax(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = Tail ? long_tail() : poisson();
  run_graph(state, nest_test::list_pipeline_max(), d, false, d.offsets_and_content() + 4.0 * lists);
}

// x * 2 + met per element (a content written): offsets + x + met read, the result written.
void BM_MapWithPerListValue(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = poisson();
  run_graph(state, nest_test::list_map(jf::dtype::float32, false), d, true,
            d.offsets_and_content() + 4.0 * lists + 4.0 * static_cast<double>(d.elements()));
}

// A sum over every element of every list (full reduction over the elements; content only).
void BM_SumOfAllElements(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = poisson();
  run_graph(state, nest_test::list_full(jf::monoid::sum, jf::dtype::float32, false, false), d, false,
            4.0 * static_cast<double>(d.elements()));
}

// As the front end lowers jf::max(x, -1) and jf::sum(x, -1): contiguous content, int indices, the
// max with its validity (a list's count > 0: out #1, one byte per list).
// pipeline: max(sqrt(x * x * 2 + met) - 1) with met (input #2) read in E as the front end reads it.
jf::ir::graph front_end_reduce(jf::monoid m, bool pipeline = false) {
  using namespace nest_test;
  domain_id l, e;
  graph g = list_graph(true, l, e);
  node_id x = input_at(g, jf::dtype::float32, jf::ir::layout::contiguous, e);
  if (pipeline) {
    const jf::dtype t = jf::dtype::float32;
    const node_id met = input_at(g, t, jf::ir::layout::strided, e);
    auto at_e = [&](node_id id) { return in_domain(g, id, e); };
    auto c = [&](double v) { return g.add_constant(t, jf::ir::scalar_value::of(t, v)); };
    const node_id y = at_e(g.add_op(op::add, t, {at_e(g.add_op(op::multiply, t, {at_e(g.add_op(op::multiply, t, {x, x})), c(2)})), met}));
    x = at_e(g.add_op(op::subtract, t, {at_e(g.add_op(op::sqrt, t, {y})), c(1)}));
  }
  output_at(g, g.add_reduce(m, x, jf::ir::no_node, l), l);
  if (m == jf::monoid::max) {
    const jf::dtype i64 = jf::dtype::int64;
    const node_id one = g.add_broadcast(g.add_constant(i64, jf::ir::scalar_value::of(i64, 1)), e);
    const node_id count = g.add_reduce(jf::monoid::sum, one, jf::ir::no_node, l);
    output_at(g, in_domain(g, g.add_op(op::greater, jf::dtype::bool_, {count, g.add_constant(i64, jf::ir::scalar_value::of(i64, 0))}), l), l);
  }
  return g;
}

// The front end's per-list sum and max at one schedule (lists per lane K, longest list of a lane T;
// 0: the generator's choice): the lists' bytes read once plus the results written.
template <jf::monoid M, bool Tail, bool Pipeline = false>
void BM_Schedule(benchmark::State& state) {
  if (!need_gpu(state)) return;
  lists_data& d = Tail ? long_tail() : poisson();
  jf::ir::nest::list_schedule_override() = {static_cast<int>(state.range(0)), static_cast<int>(state.range(1)),
                                            static_cast<int>(state.range(2)), static_cast<int>(state.range(3))};
  const jf::ir::kernel_source k = jf::ir::generate_cuda(front_end_reduce(M, Pipeline));
  jf::ir::nest::list_schedule_override() = {};
  state.SetLabel(jf::ir::describe_launch(k).substr(0, 40));
  const rt::compile_options options{};
  const rt::kernel& kern = rt::get_kernel(k.name, k.source, options);
  jf::detail::step_bindings b;
  b.extents = {lists, d.elements()};
  b.inputs = {{d.off->p, {1, 0}}, {d.x->p, {0, 1}}};
  if (Pipeline) b.inputs.push_back({d.met->p, {1, 0}});
  b.outputs = {{d.out_lists->p, {1, 0}}};
  if (M == jf::monoid::max) b.outputs.push_back({d.out_content->p, {1, 0}});
  timed_batches(state, 10, [&] { rt::launch_nest(k, kern, b); });
  jf_bench::report_bandwidth(state, d.offsets_and_content() + (M == jf::monoid::max ? 5.0 : 4.0) * lists + (Pipeline ? 4.0 * lists : 0.0),
                             copy_gbps);
}

void one(benchmark::internal::Benchmark* b) { b->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20); }

}  // namespace

BENCHMARK(BM_CopyRoof)->Apply(one);
// Arguments: lists per lane, longest list of a lane, blocks per SM in the kernel's launch bounds,
// lock steps per trip (0: the generator's choice; 0/0/0/0 is the generator's schedule).
void schedules(benchmark::internal::Benchmark* b) {
  b->Args({0, 0, 0, 0})->Args({4, 16, 0, 1})->Args({4, 16, 0, 2})->Args({4, 16, 0, 4})->Args({4, 16, 6, 0});
  b->Args({2, 16, 0, 0})->Args({2, 16, 0, 2})->Args({2, 16, 6, 0})->Args({1, 16, 0, 0})->Args({1, 16, 0, 4});
  b->Args({4, 8, 0, 0})->Args({4, 32, 0, 0})->UseManualTime()->Unit(benchmark::kMicrosecond)->Iterations(20);
}
BENCHMARK(BM_Schedule<jf::monoid::sum, false>)->Name("BM_ScheduleSumPoisson")->Apply(schedules);
BENCHMARK(BM_Schedule<jf::monoid::max, false>)->Name("BM_ScheduleMaxPoisson")->Apply(schedules);
BENCHMARK(BM_Schedule<jf::monoid::max, false, true>)->Name("BM_SchedulePipelinePoisson")->Apply(schedules);
BENCHMARK(BM_Schedule<jf::monoid::max, true>)->Name("BM_ScheduleMaxLongTail")->Apply(schedules);
BENCHMARK(BM_PerList<jf::monoid::sum, false>)->Name("BM_PerListSumPoisson")->Apply(one);
BENCHMARK(BM_PerList<jf::monoid::max, false>)->Name("BM_PerListMaxPoisson")->Apply(one);
BENCHMARK(BM_PipelineMax<false>)->Name("BM_PipelineMaxPoisson")->Apply(one);
BENCHMARK(BM_MapWithPerListValue)->Apply(one);
BENCHMARK(BM_SumOfAllElements)->Apply(one);
BENCHMARK(BM_PerList<jf::monoid::sum, true>)->Name("BM_PerListSumLongTail")->Apply(one);
BENCHMARK(BM_PerList<jf::monoid::max, true>)->Name("BM_PerListMaxLongTail")->Apply(one);
BENCHMARK(BM_PipelineMax<true>)->Name("BM_PipelineMaxLongTail")->Apply(one);

BENCHMARK_MAIN();
