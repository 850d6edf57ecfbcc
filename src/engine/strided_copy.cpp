// Element-for-element copies between arrays of one device (a generated copy kernel on jf::cuda),
// and jf::synchronize.
#include "core/strided_copy.hpp"
#include "engine/backend.hpp"
#include "jetfuse/detail/engine.hpp"

namespace jf::detail {

// dst = src element for element (equal shapes and dtypes), as one generated copy kernel.
void cuda_strided_copy(const array_base& dst, const array_base& src) {
  static kernel_slot* const slot = new_kernel_slot();
  const array_base* leaves[] = {&src};
  array_base out = dst;
  const dtype t = dst.dtype();
  eval_request r;
  r.slot = slot;
  r.lower = [](ir::graph& g, const lowering_inputs& in, int, std::vector<ir::node_id>& roots) {
    ir::node n;
    n.code = op::input;
    n.type = g.inputs[0].type;
    n.index = in.array_input[0];
    roots.push_back(g.add(n));
  };
  r.arrays = leaves;
  r.narrays = 1;
  r.outputs = &out;
  r.out_types = &t;
  r.nout = 1;
  evaluate(r);
}

}  // namespace jf::detail

namespace jf {
void synchronize() {
  detail::backend::synchronize_if_present();
}
}  // namespace jf
