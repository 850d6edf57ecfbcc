// The half of the loop-nest kernel shapes they share: facts about the graph, the recogniser that
// picks a shape, and an emitter for the argument struct, addresses, node bodies, accumulators and
// the device helpers (warp/block reductions). Each shape_*.cpp writes one kernel with it.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/codegen/codegen_detail.hpp"

namespace jf::ir::nest {

// text + number, built by appending (g++ 12's -Wrestrict misfires on "text" + std::to_string(n)).
inline std::string cat(const char* text, long long n) {
  std::string s(text);
  s += std::to_string(n);
  return s;
}

// Facts about a loop-nest graph that recognisers and emitters share.
struct facts {
  explicit facts(const graph& g);
  const graph& g;
  std::vector<char> uniform;       // constant, param, extent: the same in every iteration
  std::vector<char> after_reduce;  // a reduce node, or computed from one
  std::vector<char> input_used;    // per input: read by some node
  std::vector<node_id> reduces;    // the reduce nodes, in order
  std::vector<node_id> scatters;   // the scatter nodes, in order
  std::vector<node_id> scans;      // the scan nodes, in order
  std::vector<domain_id> output_domains;  // distinct, in order of first appearance

  // The nodes `targets` are computed from (themselves included); stop_at_reduce: the arguments of
  // a reduce, scatter or scan are not followed (its loop computes them).
  std::vector<char> closure(const std::vector<node_id>& targets, bool stop_at_reduce = true) const;
  // The output values stored over domain d.
  std::vector<node_id> outputs_in(domain_id d) const;
};

// What the recogniser found: a shape and the domains it runs.
struct shape_plan {
  kernel_shape shape = kernel_shape::generic_nest;
  domain_id outer = 0;                  // K for the row/column shapes; the root for full
  domain_id inner = -1;                 // the domain reduced from (B, R)
  std::vector<domain_id> map_domains;   // row_with_map: output domains below K
};
shape_plan recognise(const facts& f);

class emitter {
 public:
  emitter(const graph& g, const codegen_options& opt, std::string name);

  const graph& g;
  facts f;
  codegen_options opt;
  std::string kname;
  std::ostringstream s;
  // The C++ name of each node's value in the current scope ("": not computed here) and the index
  // expression (type I) of each global axis fixed in the current scope. Shapes save and restore
  // them around nested scopes.
  std::vector<std::string> vname;
  std::vector<std::string> axis;
  // Per node: the array ("" for none) its value is read from at the current flat index instead of
  // being computed, e.g. a load the row shapes kept in shared memory. emit_nodes treats those reads
  // as loads; laned_loop sets flat_index.
  std::vector<std::string> kept;
  std::string flat_index;
  // Per input: the values chunked_loop computed for a random leaf, one per row of its chunk, and
  // the one of the row being emitted ("": emit_nodes computes the value from its position).
  std::vector<std::vector<std::string>> gen_value;
  std::vector<std::string> gen_value_row;
  bool chunked = false;      // a chunked_loop was emitted
  bool chunk_words = false;  // and it may share blocks through shared memory (8 KiB, static)
  int max_threads = 0;  // > 0: the kernel's __launch_bounds__ (a launch may use that many threads)
  int min_blocks = 0;   // > 0: and the blocks per SM the compiler must fit (a register budget)
  // Inputs (and kept arrays, which must then be global inputs) read through the read-only path
  // (jf_nest::ld, __ldg): with plain loads ptxas consumed each of the list kernel's lock-step loads
  // before issuing the next one, a load in flight per lane (docs/design.md, "List kernels").
  bool ldg_inputs = false;
  // The C type of laned_loop's counter: "long long", or "I" where the shape knows the loop's indices
  // fit the kernel's index type (the list shape: offsets values below 2^31 when I is int).
  std::string laned_counter = "long long";
  // laned_loop's trip loop (already `lanes` iterations a trip) marked "#pragma unroll 1": NVVM
  // otherwise unrolls it 4 times more, and a row of 2 trips then runs the remainder code, trip
  // blocks one after another behind branches (H200, sum(x, 1) of 32768x4096 float32: 129 us as
  // unrolled, 123.5 pinned; bench/experiments/row_sum_in_jetfuse.cu).
  bool pin_trip_loops = false;
  // Where raising gathers and index checks record a failure: the evaluation's record, or a
  // jf_nest::thread_failure in registers that the shape reports at the kernel's end.
  std::string error_record = "a.err";

  std::string T(dtype t) const;
  void header(const shape_plan& p, const std::string& plan_text);
  void args_struct();
  void open_kernel(const std::string& comment);
  // `using I`, pointers, extents e<a>, strides, the uniform values (params, constants, extents).
  void prologue(const std::string& ind);
  void close_kernel() { s << "}\n"; }

  // "(e0 * e2)" for axes {0, 2}, "1LL" for none.
  std::string extent_product(const std::vector<std::int32_t>& axes) const;
  // Defines ix<a><sfx> (type I) for `axes` from the flat row-major index `flat` (a long long
  // expression, last axis fastest) and points axis[a] at them.
  void unravel(const std::string& ind, const std::string& flat, const std::vector<std::int32_t>& axes,
               const std::string& sfx);
  // The element offset of output / input k at the current iteration of domain d.
  std::string offset(bool output, std::size_t k, domain_id d) const;
  // The row-major position of the current iteration of domain d (gathers report it).
  std::string position(domain_id d) const;

  enum class which { all, loads, compute };
  // Emits the needed nodes not yet named, in order, suffixing their names with sfx. Reduce nodes go
  // to on_reduce (which must name them); without one an unnamed reduce is an internal error.
  void emit_nodes(const std::vector<char>& needed, const std::string& ind, const std::string& sfx, which w,
                  const std::function<void(node_id, const std::string&)>& on_reduce = {});
  // Forgets the values of nodes whose domain does not enclose d (they vary inside d's loops).
  void forget_below(domain_id d);

  // Reduce node r: its monoid, accumulator type and identity, combine, and final value.
  monoid mono(node_id r) const;
  dtype value_type(node_id r) const;  // its argument's dtype
  std::string acc_type(node_id r) const;
  std::string identity(node_id r) const;
  std::string combine_fn(node_id r) const;
  std::string combine_lambda(node_id r) const;
  // acc = combine(acc, argument) at the current iteration (skipped where the guard is false);
  // pos: the position of the iteration (argmin/argmax).
  void accumulate(const std::string& ind, node_id r, const std::string& acc, const std::string& pos);
  std::string result(node_id r, const std::string& acc) const;
  void store_outputs(const std::string& ind, domain_id d);

  // A loop over flat indices start, start + step, ... < n, `lanes` independent iterations per trip
  // (all loads first, for memory-level parallelism), then a remainder loop. at_lane(ind, flat) runs
  // after each lane's nodes, in index order; `needed` are the nodes computed per iteration.
  // prelude(ind, flat, sfx), when given, runs after each lane's unravel and before its nodes (the
  // list shapes fix the element and list indices there).
  void laned_loop(const std::string& ind, const std::string& counter, const std::string& start, const std::string& step,
                  const std::string& n, const std::vector<std::int32_t>& axes, int lanes, const std::vector<char>& needed,
                  const std::function<void(const std::string&, const std::string&)>& at_lane,
                  const std::function<void(const std::string&, const std::string&, const std::string&)>& prelude = {});

  // The scratch buffer: `counters` unsigned counters, then per reduce node an array of `count`
  // partials (and one of positions for argmin/argmax), each 16-byte aligned. Names: jf_counters,
  // part<r>, part<r>_pos. Host side: scratch_bytes().
  // A grid-stride loop over the flat iterations [0, n) of `axes` that shares Philox blocks between
  // consecutive iterations (philox_chunks.cpp), when a random leaf in `needed` is read along them;
  // else false, and nothing emitted. Needs blockDim.x a multiple of 32, at most 256, blockDim.y 1.
  // stores: a map phase's output domain (its outputs are stored at each iteration: at_lane stores
  // one iteration's, and the loop may store a lane's run of them as vectors itself); -1: none.
  bool chunked_loop(const std::string& ind, const std::vector<std::int32_t>& axes, const std::string& n,
                    const std::vector<char>& needed,
                    const std::function<void(const std::string&, const std::string&)>& at_lane, domain_id stores = -1);
  // The generated inputs the nodes in `needed` read at offset = the flat index over `axes`.
  std::vector<std::size_t> contiguous_generated(const std::vector<char>& needed, const std::vector<std::int32_t>& axes) const;

  void scratch_pointers(const std::string& ind, const std::string& counters, const std::string& count);
  void store_partial(const std::string& ind, node_id r, const std::string& index, const std::string& acc);
  std::string load_partial(node_id r, const std::string& index) const;
  // Splits over blockIdx.y (column and row reductions): after this block's partials are stored,
  // a fence, then thread 0 counts the block on jf_counters[counter]; the last of the gridDim.y
  // blocks resets the counter (ready for the next launch) and goes on, every other block runs
  // `leave` ("return", "continue").
  void last_split_block(const std::string& ind, const std::string& counter, const std::string& leave);
  // acc = the partials of reduce r at index_of_y (an expression of y) combined for y = 0 .. splits-1.
  void combine_splits(const std::string& ind, node_id r, const std::string& acc, const std::string& splits,
                      const std::string& index_of_y);

  std::string fresh(const std::string& stem) { return stem + std::to_string(counter_++); }
  // Independent iterations per trip: enough bytes in flight per thread.
  int unroll() const;
  // The widest element (bytes) of the inputs the kernel reads (1 when it reads none).
  int widest_input() const;

  kernel_source finish(launch_info li);
  // Operand k (outputs first) is also addressed along global axis a (a scatter's target along its
  // scattered axis): its stride st_<name>_<a> is loaded and the launcher checks its span.
  void add_operand_axis(std::size_t k, std::int32_t a) { operand_axes_[k].push_back(a); }

 private:
  int counter_ = 0;
  std::vector<std::vector<std::int32_t>> operand_axes_;  // outputs, then inputs
};

void emit_full_reduction(emitter& e, const shape_plan& p, launch_info& li);
void emit_row_reduction(emitter& e, const shape_plan& p, launch_info& li);  // row_reduction and row_with_map
void emit_column_reduction(emitter& e, const shape_plan& p, launch_info& li);
void emit_generic_nest(emitter& e, launch_info& li);
void emit_histogram(emitter& e, const shape_plan& p, launch_info& li);
void emit_scatter(emitter& e, const shape_plan& p, launch_info& li);
void emit_scan(emitter& e, const shape_plan& p, launch_info& li);
void emit_compaction(emitter& e, const shape_plan& p, launch_info& li);  // emit_scan's compactions
void emit_list(emitter& e, const shape_plan& p, launch_info& li);   // shape_list.cpp
void emit_pairs(emitter& e, const shape_plan& p, launch_info& li);  // shape_pairs.cpp
// The pairs kernels' tile (lists) and staging buffer (bytes); 0: the generator's choice (the
// largest that fits 46 KiB of static shared memory). bench_pairs compares settings with it; a
// kernel generated after a change has another source (its own compiled module).
// thread_max > 0: lists of at most that many elements (both sides of a product) are combined by a
// thread each, their fields read in place, outside the staged runs (0: the generator's choice,
// none: measured slower than the staged runs on the H200, docs/design.md "Pairs kernels").
// list_weight = w > 0: a run's threads split it by weight, 4 per combination and w per list (a
// list's setup costs about a combination: threads over many short lists take fewer combinations);
// 0: evenly over the combinations (the generator's choice: by weight measured slower on the H200).
// warp_segments: 1 forces a tile's lists into warp segments (each warp its share of the lists, 32
// combinations at a time, fields read in place; a list of more than 16 elements walked by its warp
// unless queued), -1 forces the staged runs; 0: the generator's choice (warp segments where every
// list is known to have at most 16 elements or lists are short on average; never for products).
// warp_queue = Q > 0: lists of more than Q elements (not heavy) are queued on the device and
// combined after the tiles, a warp each; -1: none; 0: the generator's choice (16 beside warp
// segments where lists may be longer, none beside the staged runs).
struct pairs_schedule {
  int tile_lists = 0;
  int stage_bytes = 0;
  int thread_max = 0;
  int list_weight = 0;
  int warp_segments = 0;
  int warp_queue = 0;
};
pairs_schedule& pairs_schedule_override();
// The list kernels' lists per lane (1, 2 or 4) and longest list combined by a lane; 0: the
// generator's choice. bench_lists compares settings with it (a kernel generated after a change has
// another source).
struct list_schedule {
  int lists_per_lane = 0;
  int thread_max = 0;
  int min_blocks = 0;  // blocks per SM in the kernel's __launch_bounds__ (0: none)
  int lock_steps = 0;  // lock steps per trip of the reductions' loop (0: the generator's choice)
};
list_schedule& list_schedule_override();

// The nodes `targets` are computed from, not crossing reduces (their loops compute them) nor the
// nodes in `stops` (named before: values a kernel keeps); stops themselves are included.
// The C type of a list (or product) domain's offsets input: "long long" (int64) or "int" (int32,
// Awkward's Index32, read as the user gave it; widened to long long where loaded).
std::string offsets_ctype(const graph& g, std::size_t input);
std::vector<char> cone(const graph& g, const std::vector<node_id>& targets, const std::vector<char>& stops);
// The values of a list domain that domain `inner` (its elements or combinations) reads through
// broadcasts, each once, in node order; `read` marks them (one flag per node).
std::vector<node_id> list_values_read_in(const emitter& e, domain_id inner, std::vector<char>& read);
// b rounded up to a multiple of 16 (shared-memory and scratch layouts).
std::size_t align16(std::size_t b);

// ---- launch rules (host) ----
std::int64_t product(const std::vector<std::int32_t>& axes, const std::int64_t* ext);
// Blocks of `threads` threads resident on the whole device at full occupancy.
std::int64_t resident_blocks(const device_limits& dev, int threads);
// Bytes of the scratch layout of emitter::scratch_pointers.
std::size_t scratch_bytes(const launch_info& li, std::int64_t counters, std::int64_t count);

launch_config configure_full_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
launch_config configure_row_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
// Whether configure_row_reduction splits few long rows over blockIdx.y (default on; tests turn it
// off to compare with a block per row).
void set_row_splits(bool on);
bool row_splits_on();
launch_config configure_column_reduction(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
launch_config configure_histogram(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
launch_config configure_scan(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
launch_config configure_compaction(const launch_info& li, const std::int64_t* ext);
std::string describe_compaction();
// describe_launch of a scan, with the numbers of a configuration when c is given.
std::string describe_scan(const launch_info& li, const launch_config* c);
launch_config configure_list(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
std::string describe_list(const launch_info& li, const launch_config* c);
launch_config configure_pairs(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
std::string describe_pairs(const launch_info& li, const launch_config* c);
launch_config configure_generic_nest(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
launch_config configure_scatter(const launch_info& li, const std::int64_t* ext, const device_limits& dev);
// describe_launch of row_with_map, with the numbers of a configuration when c is given.
std::string describe_row_with_map(const launch_info& li, const launch_config* c);

}  // namespace jf::ir::nest
