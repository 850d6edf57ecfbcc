// Helpers of the DLPack tests: a producer of managed tensors over memory the test owns, whose
// deleter counts its calls.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include <jetfuse/dlpack.hpp>

namespace jf_test {

template <class M> struct producer_ctx {
  M managed{};
  std::vector<std::int64_t> shape, strides;
  int* deletions = nullptr;

  static void deleter(M* self) {
    auto* ctx = static_cast<producer_ctx*>(self->manager_ctx);
    ++*ctx->deletions;
    delete ctx;
  }
};

struct tensor_spec {
  tensor_spec(void* data_, DLDevice device_, DLDataType dtype_, std::vector<std::int64_t> shape_,
              std::optional<std::vector<std::int64_t>> strides_ = std::nullopt, std::uint64_t byte_offset_ = 0)
      : data(data_), device(device_), dtype(dtype_), shape(std::move(shape_)), strides(std::move(strides_)),
        byte_offset(byte_offset_) {}
  void* data = nullptr;
  DLDevice device{kDLCPU, 0};
  DLDataType dtype{static_cast<std::uint8_t>(kDLFloat), 64, 1};
  std::vector<std::int64_t> shape;
  std::optional<std::vector<std::int64_t>> strides;  // none: NULL (compact row-major)
  std::uint64_t byte_offset = 0;
};

// A managed tensor as a producer makes it; `deletions` counts its deleter's calls.
template <class M> M* make_tensor(const tensor_spec& s, int* deletions) {
  auto* ctx = new producer_ctx<M>;
  ctx->shape = s.shape;
  if (s.strides) ctx->strides = *s.strides;
  ctx->deletions = deletions;
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = s.data;
  t.device = s.device;
  t.ndim = static_cast<std::int32_t>(s.shape.size());
  t.dtype = s.dtype;
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = s.strides ? (ctx->strides.empty() ? nullptr : ctx->strides.data()) : nullptr;
  if (s.strides && s.shape.empty()) t.strides = nullptr;
  t.byte_offset = s.byte_offset;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &producer_ctx<M>::deleter;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    ctx->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    ctx->managed.flags = 0;
  }
  return &ctx->managed;
}

// A byte image of a managed tensor and of its shape and strides: "untouched" means equal images.
template <class M> struct tensor_image {
  std::vector<unsigned char> self, shape, strides;
  explicit tensor_image(const M* m) {
    self.resize(sizeof(M));
    std::memcpy(self.data(), m, sizeof(M));
    const DLTensor& t = m->dl_tensor;
    if (t.shape && t.ndim > 0) {
      shape.resize(sizeof(std::int64_t) * static_cast<std::size_t>(t.ndim));
      std::memcpy(shape.data(), t.shape, shape.size());
    }
    if (t.strides && t.ndim > 0) {
      strides.resize(sizeof(std::int64_t) * static_cast<std::size_t>(t.ndim));
      std::memcpy(strides.data(), t.strides, strides.size());
    }
  }
  friend bool operator==(const tensor_image&, const tensor_image&) = default;
};

template <class T> DLDataType dl_dtype() { return jf::to_dlpack_dtype(jf::dtype_v<T>); }

}  // namespace jf_test
