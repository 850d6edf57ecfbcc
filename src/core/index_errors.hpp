// What a gather records when a position is out of bounds (numpy take's mode='raise'): the CPU
// executor writes it in host memory, kernels in device memory (the same layout, declared again in
// the kernels' helpers: nest_emitter.cpp). The engine raises jf::index_error from it after the
// evaluation, with numpy's message.
#pragma once

#include <cstdint>
#include <string>

namespace jf::detail {

struct index_error_record {
  std::uint64_t rank = 0;   // ~position of the earliest failing iteration (0: none failed)
  std::int64_t value = 0;   // its index, as given
  std::int64_t size = 0;    // the length of the axis indexed
  std::int32_t axis = 0;
  std::uint32_t lock = 0;   // kernels: a spin lock around the details (rank raised by atomicMax first)
  std::uint64_t repeats = 0;  // a store's kernel found an element named twice (remembered_indices.hpp)
};
static_assert(sizeof(index_error_record) == 40, "index_error_record: the kernels' layout");

// numpy's "index 6 is out of bounds for axis 0 with size 6".
inline std::string index_error_message(const index_error_record& r) {
  return "index " + std::to_string(r.value) + " is out of bounds for axis " + std::to_string(r.axis) + " with size " +
         std::to_string(r.size);
}

}  // namespace jf::detail
