// Out-of-bounds indices found by kernels, raised at the thread's next synchronisation: a gather or
// scatter with numpy's mode raise records its first failure in a device record (core/index_errors.hpp)
// and the evaluation returns without waiting; the CUDA runtime's wait hook (jf::synchronize(),
// every read of a result to the host) reads the records claimed since the last wait and throws
// jf::index_error for the earliest evaluation that failed. Waiting for each evaluation instead cost
// 50 us of idle GPU per call (6 % of a 2^27-element gather on an H200).
#pragma once

#include "engine/remembered_indices.hpp"

namespace jf::detail::deferred_index_checks {

// A zeroed device record for one evaluation's raising kernels; its failure is raised at the
// thread's next wait. Waits (and so may throw an earlier evaluation's error) when `capacity`
// records are claimed and not yet checked.
void* claim();
// `record` (claimed and not yet checked), when it is found clean, teaches `l` (remembered_indices.hpp).
void learn_when_clean(const void* record, remembered_indices::lesson l);
// A device record for kernels that never report (modes clip and wrap): not checked.
void* unchecked();
// Waits for the thread's stream and raises the earliest recorded failure (jf::synchronize()).
void wait_and_raise();

inline constexpr int capacity = 256;

}  // namespace jf::detail::deferred_index_checks
