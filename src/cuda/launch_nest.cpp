// Loop-nest kernel launches: the loop-nest ABI's argument struct, the scratch buffer (stream-ordered
// pool, zeroed asynchronously, freed stream-ordered after the launch; or, for kernels that reset
// their counters, one buffer per thread reused), and the launch itself.
#include "cuda/launch_nest.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::cuda_rt {

namespace {

constexpr std::int64_t int32_limit = std::int64_t(1) << 31;

// Throws unless every offset and flat index an int-indexed kernel computes fits in int32.
void check_int32(const ir::kernel_source& src, const detail::step_bindings& b) {
  const auto& ext = b.extents;
  std::int64_t total = 1;
  for (std::size_t d = 0; d < ext.size(); ++d) {
    if (ext[d] >= int32_limit)
      throw error("jetfuse: kernel " + src.name + " uses int indices but axis " + std::to_string(d) + " has extent " +
                  std::to_string(ext[d]));
    // A scatter's target axis is no loop: the target's span along it is checked with the operands'.
    // A list or pairs kernel's axes (lists, elements, slots) do not multiply: each is checked
    // alone, element positions are long long in its kernels.
    if (ext[d] > 0 && static_cast<std::int32_t>(d) != src.launch.scatter_axis && src.launch.shape != ir::kernel_shape::list &&
        src.launch.shape != ir::kernel_shape::pairs && src.launch.shape != ir::kernel_shape::full_reduction)
      total = total > int32_limit ? total : total * ext[d];
  }
  // A full reduction iterates its reduced axes (over a jagged array's elements: that axis alone).
  if (src.launch.shape == ir::kernel_shape::full_reduction)
    for (std::int32_t a : src.launch.reduced_axes)
      if (ext[static_cast<std::size_t>(a)] > 0) total = total > int32_limit ? total : total * ext[static_cast<std::size_t>(a)];
  if (total >= int32_limit)
    throw error("jetfuse: kernel " + src.name + " uses int indices but its iterations number " + std::to_string(total) +
                " or more");
  const std::size_t nout = b.outputs.size();
  for (std::size_t k = 0; k < src.launch.operand_axes.size(); ++k) {
    const detail::operand_binding& op = k < nout ? b.outputs[k] : b.inputs[k - nout];
    std::int64_t span = 0;
    for (std::int32_t a : src.launch.operand_axes[k]) {
      const std::int64_t e = ext[static_cast<std::size_t>(a)];
      if (e > 0) span += (e - 1) * std::llabs(op.strides[static_cast<std::size_t>(a)]);
    }
    if (span >= int32_limit)
      throw error("jetfuse: kernel " + src.name + " uses int indices but operand " + std::to_string(k) +
                  " spans offsets up to " + std::to_string(span));
  }
}

}  // namespace

const ir::device_limits& nest_device_limits() {
  static const ir::device_limits dev = [] {
    const device_props& p = props(0);
    const driver::api& f = driver::require();
    CUdevice d = 0;
    driver::check(f.DeviceGet(&d, 0), "cuDeviceGet");
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      driver::check(f.DeviceGetAttribute(&v, a, d), "cuDeviceGetAttribute");
      return static_cast<std::size_t>(v < 0 ? 0 : v);
    };
    ir::device_limits l;
    l.sm_count = p.sm_count;
    l.max_threads_per_sm = p.max_threads_per_sm;
    l.max_grid_y = 65535;
    l.shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    l.shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    l.shared_reserved_per_block = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    return l;
  }();
  return dev;
}

namespace {

// Dynamic shared memory above the default 48 KiB needs the kernel's opt-in. Each function's limit
// only grows (under a lock), so a concurrent launch never finds it lowered below its own need.
void allow_shared(const kernel& k, std::size_t bytes) {
  constexpr std::size_t default_limit = 48 * 1024;
  if (bytes <= default_limit) return;
  static std::mutex mutex;
  static auto* allowed = new std::map<const void*, std::size_t>;  // never destroyed (used at exit)
  std::lock_guard<std::mutex> lock(mutex);
  std::size_t& now = (*allowed)[k.function];
  if (now >= bytes) return;
  const driver::api& f = context::enter();
  const std::string call =
      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, " + std::to_string(bytes) + ") of kernel " + k.name;
  driver::check(f.FuncSetAttribute(static_cast<CUfunction>(k.function), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(bytes)),
                call.c_str());
  now = bytes;
}

// Frees the scratch stream-ordered on every path out of launch_nest.
struct scratch_guard {
  void* p = nullptr;
  ~scratch_guard() { deallocate(p); }
};

// The scratch of kernels that reset their own counters (launch_config::counters_reset_by_kernel):
// one buffer per host thread, reused by every such launch on the thread's stream (launches on one
// stream run in order), so a reduction costs no allocation and no zeroing pass per call (a memset
// node on the stream: about 2 us of a 60 us column sum on an H200). `zeroed` is how many leading
// bytes are known to be zero: a launch leaves its counters zero and its partials behind them.
struct reused_scratch {
  void* p = nullptr;
  std::size_t bytes = 0, zeroed = 0;
  ~reused_scratch() { deallocate(p); }  // stream-ordered on this thread's stream, which is never destroyed

  void* take(std::size_t need, std::size_t counters) {
    if (need > bytes) {
      deallocate(p);
      p = nullptr;
      bytes = zeroed = 0;
      const std::size_t grown = std::max<std::size_t>(need, 1 << 20);
      p = allocate(grown);
      bytes = grown;
    }
    if (zeroed < counters) {
      memset_d8(static_cast<unsigned char*>(p) + zeroed, 0, counters - zeroed);
      zeroed = counters;
    }
    return p;
  }
};
thread_local reused_scratch tls_scratch;

}  // namespace

std::vector<std::uint64_t> pack_nest_args(const ir::kernel_source& src, const detail::step_bindings& b, void* scratch) {
  const std::size_t ndim = b.extents.size();
  for (const auto* group : {&b.outputs, &b.inputs})
    for (const detail::operand_binding& op : *group)
      if (op.strides.size() != ndim)
        throw error("jetfuse: kernel " + src.name + ": an operand has " + std::to_string(op.strides.size()) +
                    " strides for " + std::to_string(ndim) + " global axes");
  std::vector<std::uint64_t> slots;
  slots.reserve(b.outputs.size() + b.inputs.size() + b.params.size() + ndim * (1 + b.outputs.size() + b.inputs.size()) + 1);
  for (const auto& o : b.outputs) slots.push_back(reinterpret_cast<std::uintptr_t>(o.ptr));
  for (const auto& i : b.inputs) slots.push_back(reinterpret_cast<std::uintptr_t>(i.ptr));
  for (std::uint64_t p : b.params) slots.push_back(p);
  for (std::int64_t e : b.extents) slots.push_back(static_cast<std::uint64_t>(e));
  for (const auto* group : {&b.outputs, &b.inputs})
    for (const detail::operand_binding& op : *group)
      for (std::int64_t st : op.strides) slots.push_back(static_cast<std::uint64_t>(st));
  slots.push_back(reinterpret_cast<std::uintptr_t>(scratch));
  slots.push_back(reinterpret_cast<std::uintptr_t>(b.error));
  slots.push_back(reinterpret_cast<std::uintptr_t>(b.aux));
  // Generated inputs' round keys, computed once per launch (kernels read them from the constant bank).
  for (std::size_t i = 0; i < src.launch.round_key_params.size(); ++i) {
    const std::int32_t p = src.launch.round_key_params[i];
    if (p < 0 || static_cast<std::size_t>(p) + 1 >= b.params.size() || i >= src.launch.round_key_bits.size())
      throw error("jetfuse: kernel " + src.name + ": a generated input's key is not among the params");
    unsigned long long rk[ir::philox_round_key_slots];
    const auto round_keys = src.launch.round_key_bits[i] == ir::bit_generator::philox4x32 ? &ops::jf_philox4x32_round_keys
                                                                                         : &ops::jf_philox_round_keys;
    round_keys(b.params[static_cast<std::size_t>(p)], b.params[static_cast<std::size_t>(p) + 1], rk);
    slots.insert(slots.end(), rk, rk + ir::philox_round_key_slots);
  }
  return slots;
}

void launch_nest(const ir::kernel_source& src, const kernel& k, const detail::step_bindings& b) {
  if (src.launch.shape == ir::kernel_shape::map)
    throw error("jetfuse: launch_nest got the map kernel " + src.name + " (map kernels use the map ABI)");
  if (src.launch.index32) check_int32(src, b);
  const ir::launch_config c =
      ir::configure_launch(src, b.extents.data(), static_cast<int>(b.extents.size()), nest_device_limits());
  if (c.empty()) return;
  allow_shared(k, c.shared_bytes);
  const std::size_t counters = std::min(c.scratch_bytes, c.scratch_zero_bytes);
  if (c.scratch_bytes > 0 && c.counters_reset_by_kernel) {
    void* p = tls_scratch.take(c.scratch_bytes, counters);
    tls_scratch.zeroed = 0;  // unknown until the launches are queued (a failed launch leaves counters set)
    const std::vector<std::uint64_t> slots = pack_nest_args(src, b, p);
    for (int l = 0; l < c.launches; ++l) launch(k, c.grid, c.block, c.shared_bytes, slots.data());
    tls_scratch.zeroed = counters;  // the kernels leave their counters zero; partials follow them
    return;
  }
  scratch_guard scratch;
  if (c.scratch_bytes > 0) {
    scratch.p = allocate(c.scratch_bytes);
    memset_d8(scratch.p, 0, counters);  // partials need no zeroing, the counters do
  }
  const std::vector<std::uint64_t> slots = pack_nest_args(src, b, scratch.p);
  for (int l = 0; l < c.launches; ++l) launch(k, c.grid, c.block, c.shared_bytes, slots.data());
}

}  // namespace jf::cuda_rt
