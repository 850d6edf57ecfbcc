// Where an array's data lives. jf::cpu and jf::cuda are the two backends.
#pragma once

#include <cstdint>
#include <string>

namespace jf {

enum class device_kind : std::uint8_t { cpu, cuda };

struct device {
  device_kind kind = device_kind::cpu;
  int ordinal = 0;  // the GPU number for cuda
  friend constexpr bool operator==(device, device) = default;
};

inline constexpr device cpu{device_kind::cpu, 0};
inline constexpr device cuda{device_kind::cuda, 0};

std::string to_string(device d);

// Whether a CUDA driver and at least one GPU are present (the driver is loaded on first use).
bool cuda_available();
// Waits until every kernel this thread launched has finished (host reads do this themselves), then
// raises jf::index_error for the first of them whose gather or scatter found an out-of-range index.
void synchronize();

}  // namespace jf
