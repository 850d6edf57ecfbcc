// An internal knob of the CPU thread pool for tests: split parallel work as if the pool had n
// threads (1: run on the calling thread; 0: the machine's, the default). Not thread-safe against
// running evaluations; tests set it between runs to check that results do not depend on it.
#pragma once

namespace jf::cpu_eval {

void set_thread_limit(int n);

}  // namespace jf::cpu_eval
