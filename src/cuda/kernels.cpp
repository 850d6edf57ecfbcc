// The module cache: memory (per process) -> disk ($JF_CACHE_DIR) -> NVRTC (load_or_compile.hpp).
// Entries are never freed, so a `const kernel&` stays valid for the life of the process.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/disk_cache.hpp"
#include "cuda/driver.hpp"
#include "cuda/load_or_compile.hpp"
#include "cuda/nvrtc_options.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/stats.hpp"

namespace jf::cuda_rt {
namespace {

struct entry {
  kernel k;
  std::string key;  // device, name, options and source: compared in full on every hit
  CUmodule module = nullptr;
};

struct module_cache {
  std::mutex mutex;
  std::unordered_map<std::uint64_t, std::vector<std::unique_ptr<entry>>> map;

  const entry* find(std::uint64_t h, const std::string& key) {
    auto it = map.find(h);
    if (it == map.end()) return nullptr;
    for (const auto& e : it->second)
      if (e->key == key) return e.get();
    return nullptr;
  }
};

module_cache& cache() {
  static auto* c = new module_cache;  // never destroyed: kernels outlive static destructors
  return *c;
}

bool show_kernels() {
  const char* v = std::getenv("JF_SHOW_KERNELS");
  return v && *v && std::string(v) != "0";
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string disk_cache_dir() { return disk_cache::directory_from_environment(); }

const kernel& get_kernel(const std::string& name, const std::string& source, const compile_options& opt) {
  const driver::api& f = context::enter();
  const device_props& p = props(0);
  const std::string arch = "sm_" + std::to_string(p.cc_major) + std::to_string(p.cc_minor);
  const std::string options = nvrtc_options_string(arch, opt);
  std::string key = "0";  // device ordinal
  key += '\0';
  key += name;
  key += '\0';
  key += options;
  key += '\0';
  key += source;
  const std::uint64_t h = disk_cache::hash64(key.data(), key.size());
  module_cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (const entry* e = c.find(h, key)) {
      detail::bump(detail::counter::memory_cache_hits);
      return e->k;
    }
  }

  // Miss: load or compile without holding the lock (NVRTC takes long; other kernels go on).
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dir = disk_cache_dir();
  const std::string full = disk_cache::full_key(source, options, nvrtc_version(), arch);
  auto e = std::make_unique<entry>();
  CUfunction fn = nullptr;
  auto load_kernel = [&](const std::vector<char>& cubin, bool must_succeed) {
    if (CUresult r = f.ModuleLoadData(&e->module, cubin.data()); r != CUDA_SUCCESS) {
      e->module = nullptr;
      if (must_succeed) driver::check(r, ("cuModuleLoadData of kernel " + name).c_str());
      if (show_kernels())
        std::fprintf(stderr, "jetfuse: disk cache entry of %s ignored: cuModuleLoadData failed (%s)\n", name.c_str(),
                     driver::error_string(r).c_str());
      return false;
    }
    if (CUresult r = f.ModuleGetFunction(&fn, e->module, name.c_str()); r != CUDA_SUCCESS) {
      (void)f.ModuleUnload(e->module);
      e->module = nullptr;
      if (must_succeed)
        throw cuda_error("jetfuse: kernel " + name + " not found in its compiled module (cuModuleGetFunction failed: " +
                         driver::error_string(r) + "); is it declared extern \"C\" __global__?");
      if (show_kernels())
        std::fprintf(stderr, "jetfuse: disk cache entry of %s ignored: it lacks the kernel (%s)\n", name.c_str(),
                     driver::error_string(r).c_str());
      return false;
    }
    return true;
  };
  const cubin_origin origin = load_or_compile({
      [&] { return disk_cache::load(dir, full); },
      [&] {
        try {
          return nvrtc_compile(source, arch, opt);
        } catch (const compile_error& err) {
          throw compile_error("jetfuse: NVRTC could not compile kernel " + name + " for " + arch, err.source(),
                              err.log());
        }
      },
      load_kernel,
      [&](const std::vector<char>& cubin) { disk_cache::store(dir, full, cubin); },
  });
  if (origin == cubin_origin::disk_cache) {
    detail::bump(detail::counter::disk_cache_hits);
    if (show_kernels())
      std::fprintf(stderr, "jetfuse: loaded %s from disk cache in %.1f ms\n", name.c_str(), ms_since(t0));
  } else if (show_kernels()) {
    std::fprintf(stderr, "jetfuse: compiled %s in %.1f ms (nvrtc)\n%s\n", name.c_str(), ms_since(t0), source.c_str());
  }
  e->k.function = fn;
  e->k.name = name;
  e->key = std::move(key);

  std::lock_guard<std::mutex> lock(c.mutex);
  if (const entry* other = c.find(h, e->key)) {  // another thread won the race: keep its module
    (void)f.ModuleUnload(e->module);
    return other->k;
  }
  auto& bucket = c.map[h];
  bucket.push_back(std::move(e));
  return bucket.back()->k;
}

}  // namespace jf::cuda_rt
