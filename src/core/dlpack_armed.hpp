// Importing several DLPack tensors as one jetfuse value (offsets + contents of a jagged array):
// each is wrapped without copying, but its deleter runs only once the caller sets *armed — after
// every tensor was accepted — so that a refusal leaves all of them with their producer.
#pragma once

#include <memory>

#include "jetfuse/dlpack.hpp"

namespace jf::detail {

array_base from_dlpack_armed(DLManagedTensor* t, std::shared_ptr<const bool> armed);
array_base from_dlpack_armed(DLManagedTensorVersioned* t, dlpack_read_only read_only,
                             std::shared_ptr<const bool> armed);

}  // namespace jf::detail
