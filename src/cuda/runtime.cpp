// The CUDA runtime: primary context, a stream per host thread, the stream-ordered memory pool,
// copies, launches and synchronisation. The module cache is in kernels.cpp, NVRTC in nvrtc.cpp.
#include "cuda/runtime.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "cuda/block_cache.hpp"
#include "cuda/context.hpp"
#include "cuda/driver.hpp"
#include "cuda/graph_launch.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/stats.hpp"

namespace jf::cuda_rt {
namespace {

struct device_state {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmemoryPool pool = nullptr;  // null when the device has no stream-ordered allocator
};

device_state make_device_state(const driver::api& f) {
  device_state d;
  driver::check(f.DeviceGet(&d.dev, 0), "cuDeviceGet");
  driver::check(f.DevicePrimaryCtxRetain(&d.ctx, d.dev), "cuDevicePrimaryCtxRetain");  // never released
  driver::check(f.CtxSetCurrent(d.ctx), "cuCtxSetCurrent");
  int pools = 0;
  driver::check(f.DeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, d.dev), "cuDeviceGetAttribute");
  if (pools) {
    driver::check(f.DeviceGetDefaultMemPool(&d.pool, d.dev), "cuDeviceGetDefaultMemPool");
    // Keep freed memory in the pool: temporaries then cost no cuMemAlloc after warm-up.
    cuuint64_t threshold = UINT64_MAX;
    driver::check(f.MemPoolSetAttribute(d.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold), "cuMemPoolSetAttribute");
  }
  return d;
}

const device_state& device0() {
  // A heap object that is never destroyed: frees from static destructors still find it.
  static const device_state* d = new device_state(make_device_state(driver::require()));
  return *d;
}

thread_local CUstream tls_stream = nullptr;

// This thread's small freed blocks (block_cache.hpp), freed to the pool when the thread exits.
// A free after that (another thread_local's destructor) goes to the pool directly.
thread_local bool tls_blocks_gone = false;  // trivially destructible: readable to the thread's end
struct thread_blocks {
  block_cache cache;
  ~thread_blocks() {
    tls_blocks_gone = true;
    const driver::api* f = driver::get();
    if (f == nullptr || tls_stream == nullptr) return;
    for (CUdeviceptr p : cache.drain()) (void)f->MemFreeAsync(p, tls_stream);
  }
};
thread_local thread_blocks tls_blocks;

std::atomic<wait_hook> the_wait_hook{nullptr};
thread_local bool tls_in_wait_hook = false;
thread_local const kernel* tls_last_kernel = nullptr;

// The stream each live allocation was made on and its size: a free from another thread is
// ordered after the work of both streams (the freeing thread's stream is synchronised first); a
// free on the allocating thread may keep a small block for it (block_cache).
struct allocation {
  CUstream stream = nullptr;
  std::size_t bytes = 0;
};
struct allocation_streams {
  std::mutex mutex;
  std::unordered_map<CUdeviceptr, allocation> map;
};
allocation_streams& allocations() {
  static auto* a = new allocation_streams;  // never destroyed, see device0()
  return *a;
}

CUdeviceptr dptr(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)); }

// The wait hook, once per wait (its own copies do not run it again).
void after_wait() {
  const wait_hook hook = the_wait_hook.load(std::memory_order_acquire);
  if (hook == nullptr || tls_in_wait_hook) return;
  tls_in_wait_hook = true;
  try {
    hook();
  } catch (...) {
    tls_in_wait_hook = false;
    throw;
  }
  tls_in_wait_hook = false;
}

std::string last_kernel_note() {
  return tls_last_kernel ? " (the last kernel launched on this thread's stream was " + tls_last_kernel->name + ")"
                         : std::string();
}

void sync_stream(const driver::api& f, CUstream s) {
  if (CUresult r = f.StreamSynchronize(s); r != CUDA_SUCCESS)
    throw cuda_error("jetfuse: cuStreamSynchronize failed: " + driver::error_string(r) + last_kernel_note());
}

}  // namespace

namespace context {

const driver::api& enter() {
  const driver::api& f = driver::require();
  const device_state& d = device0();
  CUcontext cur = nullptr;
  // Checked on every call: another library may have changed this thread's current context.
  if (f.CtxGetCurrent(&cur) != CUDA_SUCCESS || cur != d.ctx) driver::check(f.CtxSetCurrent(d.ctx), "cuCtxSetCurrent");
  return f;
}

CUstream stream() {
  if (tls_stream == nullptr) {
    const driver::api& f = enter();
    CUstream s = nullptr;
    driver::check(f.StreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    tls_stream = s;
  }
  return tls_stream;
}

}  // namespace context

bool available() { return driver::get() != nullptr; }

void require() { driver::require(); }

const device_props& props(int ordinal) {
  const driver::api& f = driver::require();
  static std::mutex mutex;
  static auto* cache = new std::map<int, std::unique_ptr<device_props>>;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*cache)[ordinal];
  if (!slot) {
    CUdevice dev = 0;
    int count = 0;
    driver::check(f.DeviceGetCount(&count), "cuDeviceGetCount");
    if (ordinal < 0 || ordinal >= count)
      throw no_device("jetfuse: no CUDA device: cuda:" + std::to_string(ordinal) + " does not exist (" +
                      std::to_string(count) + " GPUs)");
    driver::check(f.DeviceGet(&dev, ordinal), "cuDeviceGet");
    auto p = std::make_unique<device_props>();
    char name[256] = {};
    driver::check(f.DeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    p->name = name;
    auto attr = [&](CUdevice_attribute a) {
      int v = 0;
      driver::check(f.DeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
      return v;
    };
    p->sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    p->cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p->cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p->max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    std::size_t total = 0;
    driver::check(f.DeviceTotalMem(&total, dev), "cuDeviceTotalMem");
    p->total_memory = total;
    slot = std::move(p);
  }
  return *slot;
}

void* current_stream() { return context::stream(); }

void synchronize() {
  const driver::api& f = context::enter();
  sync_stream(f, context::stream());
  after_wait();
}

void wait_quietly() {
  const driver::api& f = context::enter();
  sync_stream(f, context::stream());
}

void set_wait_hook(wait_hook hook) { the_wait_hook.store(hook, std::memory_order_release); }

void* allocate(std::size_t bytes) {
  const driver::api& f = context::enter();
  const device_state& d = device0();
  CUstream s = context::stream();
  const std::size_t n = bytes == 0 ? 1 : bytes;  // a unique, valid address even for empty arrays
  // A block this thread freed, on this stream, else one from the driver.
  CUdeviceptr p = d.pool && !tls_blocks_gone ? tls_blocks.cache.take(n) : 0;
  if (p == 0) {
    auto attempt = [&] { return d.pool ? f.MemAllocFromPoolAsync(&p, n, d.pool, s) : f.MemAlloc(&p, n); };
    CUresult r = attempt();
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      // This thread's kept blocks go back to the pool, and memory freed on other streams returns
      // to it once their work is done: wait, trim, retry.
      if (!tls_blocks_gone)
        for (CUdeviceptr b : tls_blocks.cache.drain()) (void)f.MemFreeAsync(b, s);
      (void)f.CtxSynchronize();
      if (d.pool) (void)f.MemPoolTrimTo(d.pool, 0);
      r = attempt();
    }
    if (r == CUDA_ERROR_OUT_OF_MEMORY || (r != CUDA_SUCCESS && bytes > props(0).total_memory))
      throw out_of_memory("jetfuse: cannot allocate " + std::to_string(bytes) + " bytes on cuda:0 (" +
                          driver::error_string(r) + "; the GPU has " + std::to_string(props(0).total_memory) +
                          " bytes)");
    driver::check(r, d.pool ? "cuMemAllocFromPoolAsync" : "cuMemAlloc");
  }
  {
    auto& a = allocations();
    std::lock_guard<std::mutex> lock(a.mutex);
    a.map[p] = allocation{s, n};
  }
  detail::bump(detail::counter::device_allocations);
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));
}

void deallocate(void* ptr) {
  if (ptr == nullptr) return;
  const driver::api* f = driver::get();
  if (f == nullptr) return;
  try {  // called from destructors, possibly at exit after the driver shut down: never throws
    context::enter();
    const device_state& d = device0();
    CUstream own = context::stream();
    CUstream alloc_stream = own;
    std::size_t bytes = 0;  // 0: not allocated here (never kept)
    {
      auto& a = allocations();
      std::lock_guard<std::mutex> lock(a.mutex);
      if (auto it = a.map.find(dptr(ptr)); it != a.map.end()) {
        alloc_stream = it->second.stream;
        bytes = it->second.bytes;
        a.map.erase(it);
      }
    }
    if (d.pool && bytes > 0 && alloc_stream == own && !tls_blocks_gone && tls_blocks.cache.keep(dptr(ptr), bytes))
      return;
    if (!d.pool) {
      (void)f->CtxSynchronize();
      (void)f->MemFree(dptr(ptr));
      return;
    }
    if (alloc_stream != own) (void)f->StreamSynchronize(own);
    (void)f->MemFreeAsync(dptr(ptr), alloc_stream);
  } catch (...) {
  }
}

void copy_htod(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  const driver::api& f = context::enter();
  CUstream s = context::stream();
  driver::check(f.MemcpyHtoDAsync(dptr(dst), src, bytes, s), "cuMemcpyHtoDAsync");
  // Correctness first: the (pageable) source may be freed by the caller as soon as we return.
  sync_stream(f, s);
}

void copy_dtoh(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  const driver::api& f = context::enter();
  CUstream s = context::stream();
  driver::check(f.MemcpyDtoHAsync(dst, dptr(src), bytes, s), "cuMemcpyDtoHAsync");
  sync_stream(f, s);
  after_wait();
}

void copy_dtod(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  const driver::api& f = context::enter();
  driver::check(f.MemcpyDtoDAsync(dptr(dst), dptr(src), bytes, context::stream()), "cuMemcpyDtoDAsync");
}

void memset_d8(void* dst, unsigned char value, std::size_t bytes) {
  if (bytes == 0) return;
  const driver::api& f = context::enter();
  driver::check(f.MemsetD8Async(dptr(dst), value, bytes, context::stream()), "cuMemsetD8Async");
}

bool graph_launch_enabled() { return available() && graph_launch::enabled(driver::require()); }

void launch(const kernel& k, unsigned grid, unsigned block, const void* args, std::size_t arg_bytes) {
  (void)arg_bytes;  // the driver copies the kernel's declared parameter size from args
  const unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
  launch(k, g, b, 0, args);
}

void launch(const kernel& k, const unsigned grid[3], const unsigned block[3], std::size_t shared_bytes, const void* args) {
  const driver::api& f = context::enter();
  CUstream s = context::stream();
  if (graph_launch::launch(f, k, grid, block, static_cast<unsigned>(shared_bytes), args, s)) {
    detail::bump(detail::counter::graph_launches);
  } else {
    void* params[1] = {const_cast<void*>(args)};
    if (CUresult r = f.LaunchKernel(static_cast<CUfunction>(k.function), grid[0], grid[1], grid[2], block[0], block[1],
                                    block[2], static_cast<unsigned>(shared_bytes), s, params, nullptr);
        r != CUDA_SUCCESS)
      throw cuda_error("jetfuse: launch of kernel " + k.name + " failed: " + driver::error_string(r) + " (grid " +
                       std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]) +
                       ", block " + std::to_string(block[0]) + "x" + std::to_string(block[1]) + "x" +
                       std::to_string(block[2]) + ", " + std::to_string(shared_bytes) + " B shared)");
  }
  tls_last_kernel = &k;
  detail::bump(detail::counter::launches);
}

}  // namespace jf::cuda_rt
