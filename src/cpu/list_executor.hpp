// The CPU executor's part for graphs with list domains (src/cpu/list_executor.cpp).
#pragma once

#include "core/step_bindings.hpp"
#include "jetfuse/ir/graph.hpp"

namespace jf::cpu_exec {

bool has_list_domains(const ir::graph& g);
// Runs a validated graph of the root, one list domain and its elements domain (bindings checked).
void execute_lists(const ir::graph& g, const detail::step_bindings& b);

}  // namespace jf::cpu_exec
