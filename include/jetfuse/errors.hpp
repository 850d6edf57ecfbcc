// The typed exceptions jetfuse throws. All derive from jf::error (a std::runtime_error).
#pragma once

#include <stdexcept>
#include <string>

namespace jf {

struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Shapes that do not broadcast, a reshape of the wrong size, a write into the wrong shape.
struct shape_error : error {
  using error::error;
};
// An operation that is not defined for a dtype (e.g. a shift of floats), or a lossy scalar.
struct dtype_error : error {
  using error::error;
};
// Arrays of different backends in one expression; only jf::to_backend moves data.
struct backend_mismatch : error {
  using error::error;
};
// An argument with the right type but an unusable value (numpy's ValueError): a null array
// handle used as an operand, a NaN bound of arange, a null host pointer.
struct value_error : error {
  using error::error;
};
// An axis argument outside the operand's dimensions, or repeated (numpy's AxisError, which is a
// ValueError and an IndexError; here a value_error).
struct axis_error : value_error {
  using value_error::value_error;
};
// An index or a slice bound outside an axis. Never wrapped silently.
struct index_error : error {
  using error::error;
};
// jf::cuda used where there is no usable GPU or driver.
struct no_device : error {
  using error::error;
};
// A CUDA driver call failed; the message names the call or the kernel.
struct cuda_error : error {
  using error::error;
};
// The device (after trimming the memory pool once) or the host could not allocate.
struct out_of_memory : error {
  using error::error;
};
// NVRTC rejected a generated kernel; the message carries the source and the NVRTC log.
struct compile_error : error {
  compile_error(const std::string& what, std::string source, std::string log)
      : error(what + "\n--- NVRTC log ---\n" + log + "\n--- generated source ---\n" + source),
        source_(std::move(source)), log_(std::move(log)) {}
  const std::string& source() const noexcept { return source_; }
  const std::string& log() const noexcept { return log_; }

private:
  std::string source_, log_;
};

}  // namespace jf
