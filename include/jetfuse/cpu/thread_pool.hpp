// The CPU evaluator's persistent worker pool: one per process, created on first use, sized to
// the machine's hardware threads. Never spawns threads per evaluation.
#pragma once

#include <cstdint>

namespace jf::cpu_eval {

// Number of threads that work on one parallel_for (the workers plus the calling thread).
int num_threads();

// Calls fn(ctx, begin, end) on disjoint chunks covering [0, n), in parallel on the pool when n is
// large enough that every chunk has at least min_chunk elements; returns when all are done. The
// calling thread takes part. fn must not throw. Safe to call from several threads at once.
void parallel_for(std::int64_t n, std::int64_t min_chunk, void (*fn)(void* ctx, std::int64_t begin, std::int64_t end),
                  void* ctx);

}  // namespace jf::cpu_eval
