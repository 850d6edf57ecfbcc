// A reference-counted block of memory on one backend. Arrays and views share buffers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "jetfuse/device.hpp"

namespace jf::detail {

// What a buffer's elements are: memory, or values a kernel computes from their position (the
// leaves of jf::random: no memory, element e is generated from (key, first + e)).
enum class buffer_source : std::uint8_t { memory, philox_f64, philox_f32, normal_f64, normal_f32, integers };
// The counter-based bit generator of a generated buffer: numpy's Philox4x64-10 (jf::random::philox)
// or Random123's Philox4x32-10 (jf::random::philox4x32).
enum class bit_generator : std::uint8_t { philox4x64, philox4x32 };

struct buffer {
  void* ptr = nullptr;       // host pointer (cpu) or CUdeviceptr cast to void* (cuda)
  std::size_t bytes = 0;
  device dev{};
  std::function<void(void*)> release;  // frees ptr; empty for nothing to free
  buffer_source source = buffer_source::memory;
  bit_generator bits = bit_generator::philox4x64;  // generated: the bit generator
  std::uint64_t key[2] = {0, 0};  // generated: the Philox key (low, high words; 4x32: 32-bit words)
  std::uint64_t first = 0;        // generated: the position of element e is first + e (numpy's output index)...
  std::uint64_t aux = 0;          // ... random float32: element 0 at aux - 1 when aux != 0 (numpy's kept
                                  // half); integers: their range (values in [0, aux))

  // Whether the elements may have changed, for what jetfuse remembers about them (a scatter's index
  // array found in bounds, distinct or repeating, and its winners: remembered_indices.hpp). `writes` counts jetfuse's
  // writes into existing memory; `external` is set once memory can be written behind jetfuse's back
  // (adopted, a mutable raw pointer or a DLPack capsule handed out): then nothing is remembered.
  mutable std::atomic<std::uint64_t> writes{0};
  mutable std::atomic<bool> external{false};

  buffer() = default;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() {
    if (release) release(ptr);
  }
};
using buffer_ptr = std::shared_ptr<buffer>;

// Uninitialised memory on a backend: 64-byte aligned on the host, from the stream-ordered pool on
// a GPU. Throws out_of_memory, no_device.
buffer_ptr allocate(device dev, std::size_t bytes);

// Takes ownership of memory the user allocated; `deleter` is called when the last array using it
// goes away (it may be empty for memory the user keeps owning).
buffer_ptr adopt(device dev, void* ptr, std::size_t bytes, std::function<void(void*)> deleter);

// jetfuse is about to write elements of b (its write count moves on: remembered facts lapse).
inline void note_write(const buffer& b) { b.writes.fetch_add(1, std::memory_order_relaxed); }
// Memory of b can be written behind jetfuse's back from now on.
inline void note_external(const buffer& b) { b.external.store(true, std::memory_order_relaxed); }

// Byte copies between buffers of any backends (synchronous with respect to the host for host
// destinations: the data are there on return).
void copy_bytes(const buffer& dst, std::size_t dst_offset, const buffer& src, std::size_t src_offset,
                std::size_t bytes);
void copy_from_host(const buffer& dst, std::size_t dst_offset, const void* src, std::size_t bytes);
void copy_to_host(void* dst, const buffer& src, std::size_t src_offset, std::size_t bytes);

}  // namespace jf::detail
