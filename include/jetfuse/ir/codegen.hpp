// CUDA C++ generation from a jf::ir::graph (src/cuda/codegen/cuda_codegen.cpp for map graphs, the
// kernel shapes of src/cuda/codegen/shape_*.cpp for loop-nest graphs) and each kernel's launch rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jetfuse/ir/graph.hpp"

namespace jf::ir {

struct codegen_options {
  bool fast_math = false;
};

// The kernel shapes (docs/design.md, "Code generation"). Each owns its launch
// configuration (configure_launch) and its order of combination.
enum class kernel_shape : std::uint8_t {
  map,               // a grid-stride loop over one box (map graphs)
  list,              // a jagged array's lists and elements: tiles of 256 lists per block, per-list
                     // reductions (staged, or a thread / warp / block per list by length) and maps
  pairs,             // reductions of each list's combinations (ak.combinations, 2 or 3) into the list:
                     // tiles of lists taken from a device counter, each tile's combinations spread
                     // evenly over its threads; lists with many combinations split over blocks
  full_reduction,    // reduce(s) of one box chain into the root: block partials + last-block finish
  row_reduction,     // reduce(s) into box(K) from box(R) under it, R innermost: a warp or block per row
  column_reduction,  // the same with the fastest axis in K: threads across K, R split over blockIdx.y
  row_with_map,      // a row reduction whose rows also run element-wise work below K (x - mean(x)),
                     // the row's loads kept in shared memory when the work is over R itself and fits
  histogram,         // a scatter of counts into a box of bins: block-private counts in shared memory,
                     // added to the grid's by integer atomics, the last block stores them
  scan,              // a scan (cumsum) along one axis, its producers and consumers per element: tiles with
                     // a decoupled look-back over a long axis, a warp per row for short ones, a thread per
                     // row when the scanned axis is not the fastest
  generic_nest,      // anything else: a thread per output iteration, serial loops for reductions
  scatter,           // the one output is a put (numpy's put, x[indices] = v, ufunc.at): indices
                     // checked and elements claimed by their last writer, then values written
};
std::string_view name(kernel_shape s);

// What a kernel's launch depends on, fixed by the generator (run-time extents come later).
struct launch_info {
  kernel_shape shape = kernel_shape::map;
  int block = 256;            // threads per block (the row shapes pick 32x8, 256x1 or 1024x1 at launch)
  int vector_width = 1;       // map: elements per vector access
  bool index32 = false;       // the kernel computes offsets and indices in int: extents must fit
  std::vector<std::int32_t> outer_axes;    // full: none; row/column: K's axes (one unit per iteration)
  std::vector<std::int32_t> reduced_axes;  // the axes combined by each unit (full: the whole chain)
  std::vector<std::int32_t> map_axes;      // row_with_map: the axes of the map domain(s) below K
  bool row_splits = false;  // row: the kernel can split rows over blockIdx.y (partials, a counter per row)
  // Bytes of one element of each array of partials in the scratch buffer (full, column): per
  // reduce node its accumulator's value, plus 8 for the position of argmin/argmax.
  std::vector<int> partial_bytes;
  // Per operand (outputs, then inputs): the global axes it is addressed over (for int32 checks).
  std::vector<std::vector<std::int32_t>> operand_axes;
  // generic_nest: per phase (output domain, in order) the axes of its iterations.
  std::vector<std::vector<std::int32_t>> phase_axes;
  // row_with_map over the reduced domain itself: bytes per element of each load the reduction loop
  // keeps in shared memory for the map loop when the row fits (empty: the map loop reloads).
  std::vector<int> row_cache_bytes;
  int static_shared_bytes = 0;  // an upper bound of the kernel's static shared memory
  // histogram: the block counts in shared memory when the bins fit (the value counted is 1).
  bool private_counts = false;
  // Random leaves read in warp chunks that share Philox blocks (philox_chunks.cpp).
  bool philox_chunks = false;
  // Per generated input, in order: the index of its first param (its key words are that param and
  // the next) and its bit generator; the launcher appends their round keys to the arguments (nest
  // ABI, graph.hpp).
  std::vector<std::int32_t> round_key_params;
  std::vector<bit_generator> round_key_bits;
  // scatter: launches of the kernel in a row on one scratch (2: checks, then values; 5 for stores:
  // marks, their count, values or the claims' zeroing, claims, claimed values), the target's
  // scattered axis and the bytes of one claim per element of it (0: no claims).
  int launches = 1;
  std::int32_t scatter_axis = -1;
  int claim_bytes = 0;
  // scan: reduced_axes are the scanned axes (one, or the domain's whole chain when flattened),
  // outer_axes the rows; a thread per row serially along the axis when it is not the fastest;
  // elements per lane in a tile (tile mode, blockDim.x 256) and in a warp's segment (blockDim.x 32);
  // the scanned value's bytes (the tiles' status words in scratch); the bytes of a tile's elements
  // as held between their loads and stores (at most 4: the lean tile form, shape_scan.cpp).
  bool scan_columns = false;
  bool scan_compaction = false;  // a compaction: two launches, tiles counted then stored (shape_compaction.cpp)
  int scan_tile_items = 0;
  int scan_warp_items = 0;
  int scan_value_bytes = 0;
  int scan_held_bytes = 0;
  // pairs: the most elements of a tile whose operands are staged in shared memory (0: never).
  int list_stage_items = 0;
  // list: the lists per lane of a warp tile, the longest list combined by its lane, the longest by
  // its warp (longer: the block), the lock steps per trip of the lanes' reduction loop.
  int list_lists_per_lane = 0;
  int list_thread_max = 0;
  int list_warp_max = 0;
  int list_lock_steps = 0;
  // list: the list domain's longest list as the graph knew it (domain::longest; -1: not known). At
  // most list_thread_max: no warp or block paths; at most list_warp_max: no block path.
  std::int64_t list_longest = -1;
  // pairs: the arity (2 or 3), the lists per tile, and the shortest list the kernel may queue as heavy
  // (sizes the queue in scratch: at most elements / pairs_min_heavy + 1 heavy lists). A product
  // (cartesian) kernel counts the elements of both lists (a's and b's) wherever a pairs kernel
  // counts the list's.
  bool pairs_product = false;
  int pairs_arity = 0;
  int pairs_tile_lists = 0;
  int pairs_min_heavy = 0;
  // pairs: lists of at most this many elements combined by one thread each (0: none).
  int pairs_thread_max = 0;
  // pairs: a run split over the threads by weight, 4 per combination and this per list (0: evenly
  // over the combinations).
  int pairs_list_weight = 0;
  // pairs: the light lists combined in warp segments (each warp its share of a tile's lists, a lane
  // per combination, fields read in place) instead of staged runs.
  bool pairs_warp_segments = false;
  // pairs: lists of more than this many elements (not heavy) queued on the device and combined
  // after the tiles, a warp each (0: none); sizes their queue in scratch.
  int pairs_warp_queue = 0;
};

struct kernel_source {
  std::string name;    // the __global__ function's name (extern "C")
  std::string source;  // a complete NVRTC translation unit: prelude + kernel
  launch_info launch;  // the kernel's shape and what its launch depends on
};

// Readable CUDA C++. Map graphs (g.is_map()): a grid-stride loop over the iteration space, one
// named value per node, 16-byte vector accesses when graph::vector_width > 1, int indices when
// graph::index32; the map ABI of graph.hpp. Loop-nest graphs: one of the kernel shapes above,
// recognised from the graph's structure, with the loop-nest ABI of graph.hpp. Throws jf::error for
// graphs no shape handles (pairs and product domains, broadcasts from a non-enclosing domain, in-place
// outputs of loop nests).
kernel_source generate_cuda(const graph& g, const codegen_options& opt = {});

// The few device facts a launch depends on (cuda_rt::device_props and driver attributes provide
// them). Shared memory 0: unknown, no kernel gets dynamic shared memory.
struct device_limits {
  int sm_count = 1;
  int max_threads_per_sm = 2048;
  int max_grid_y = 65535;
  std::size_t shared_per_block = 0;           // opt-in maximum of one block, static + dynamic
  std::size_t shared_per_sm = 0;              // of one multiprocessor
  std::size_t shared_reserved_per_block = 0;  // taken by the system from shared_per_sm per resident block
};

struct launch_config {
  unsigned grid[3] = {1, 1, 1};   // 0 in grid[0]: nothing to do (no iteration), do not launch
  unsigned block[3] = {1, 1, 1};
  std::size_t shared_bytes = 0;   // dynamic shared memory
  std::size_t scratch_bytes = 0;  // device scratch passed in the last ABI slot (0: none)
  // The launcher zeroes the scratch's first min(scratch_zero_bytes, scratch_bytes) bytes (counters);
  // the rest (partials every kernel writes before reading) is left as allocated.
  std::size_t scratch_zero_bytes = ~std::size_t(0);
  // The kernel leaves those counters at zero when it completes (its last block resets them), so a
  // scratch a previous such launch on the same stream left behind needs no zeroing (launch_nest.cpp).
  bool counters_reset_by_kernel = false;
  int launches = 1;               // the kernel runs this many times in a row on the same scratch
  bool empty() const { return grid[0] == 0 || grid[1] == 0 || grid[2] == 0; }
};

// The launch of kernel k for run-time extents (graph::ndim of them; for map graphs the shape of
// the iteration space). A pure function of (k, extents, device): the same grid every time, hence
// the same order of combination and the same bits.
launch_config configure_launch(const kernel_source& k, const std::int64_t* extents, int ndim, const device_limits& dev);

// One line for jf::explain: the shape and how it is launched ("row reduction: a 256-thread block
// per row, ..."). With a configuration, its numbers too.
std::string describe_launch(const kernel_source& k);
std::string describe_launch(const kernel_source& k, const launch_config& c);

// The number of 8-byte slots of a loop-nest kernel's argument struct (graph.hpp, loop-nest ABI).
int nest_abi_slots(const graph& g);
// Slots of one generated input's Philox round keys at the end of the loop-nest ABI (10 rounds x 2
// words; Philox4x32's 32-bit words zero-extended).
constexpr int philox_round_key_slots = 20;

// The CUDA spelling of a dtype ("double", "long long", ...).
std::string_view cuda_type(dtype t);

// jetfuse/scalar_ops.hpp as text: the prelude of every kernel.
std::string_view scalar_ops_source();

}  // namespace jf::ir
