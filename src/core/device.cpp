// Device names and the availability query (the driver is probed lazily by the runtime).
#include "jetfuse/device.hpp"

#include "cuda/runtime.hpp"

namespace jf {

std::string to_string(device d) {
  if (d.kind == device_kind::cpu) return "cpu";
  return "cuda:" + std::to_string(d.ordinal);
}

bool cuda_available() { return cuda_rt::available(); }

}  // namespace jf
