// The CPU backend's executor of jf::ir graphs: runs a map graph or a loop-nest graph, as lowered
// (no pass needs to have run), on the persistent thread pool. docs/design.md ("The IR of loop nests") has the contract;
// src/cpu/executor.cpp documents the schedule and the order in which reductions combine.
#pragma once

#include "core/step_bindings.hpp"
#include "jetfuse/ir/graph.hpp"

namespace jf::cpu_exec {

// Runs g on the CPU: reads the inputs and params of b, writes its outputs. Every operand is
// addressed by b's strides (the layouts of g are ignored). Throws jf::error for an invalid graph,
// bindings that do not match it, or what the executor does not support (jagged domains).
// Deterministic: the same bits whatever the number of threads.
void execute(const ir::graph& g, const detail::step_bindings& b);
// The same for a graph validated before (a cached variant's IR, validated when it was built): a
// small call's executor skips the walk over the graph's nodes and domains.
void execute_validated(const ir::graph& g, const detail::step_bindings& b);

}  // namespace jf::cpu_exec
