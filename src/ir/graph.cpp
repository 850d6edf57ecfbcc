// jf::ir::graph: builders, the readable listing and the invariant checker.
#include "jetfuse/ir/graph.hpp"

#include <cstdio>
#include <sstream>

#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::ir {

scalar_value scalar_value::of(dtype t, double v) {
  scalar_value s;
  switch (t) {
  case dtype::bool_: s.i = jf::ops::jf_cast<bool>(v) ? 1 : 0; break;
  case dtype::int32: s.i = jf::ops::jf_cast<int>(v); break;
  case dtype::int64: s.i = jf::ops::jf_cast<long long>(v); break;
  case dtype::float32: s.f = static_cast<double>(jf::ops::jf_cast<float>(v)); break;
  case dtype::float64: s.f = v; break;
  }
  return s;
}

node_id graph::add_input(dtype t, layout l) {
  inputs.push_back({t, l});
  node n;
  n.code = op::input;
  n.type = t;
  n.index = static_cast<std::int32_t>(inputs.size() - 1);
  return add(n);
}

node_id graph::add_param(dtype t) {
  params.push_back(t);
  node n;
  n.code = op::param;
  n.type = t;
  n.index = static_cast<std::int32_t>(params.size() - 1);
  return add(n);
}

node_id graph::add_constant(dtype t, scalar_value v) {
  node n;
  n.code = op::constant;
  n.type = t;
  n.value = v;
  return add(n);
}

node_id graph::add_op(jf::op code, dtype result, std::initializer_list<node_id> args) {
  if (args.size() > 3) throw error("jf::ir::graph::add_op: at most 3 arguments");
  node n;
  n.code = code;
  n.type = result;
  n.nargs = static_cast<std::int8_t>(args.size());
  int k = 0;
  for (node_id a : args) n.args[static_cast<std::size_t>(k++)] = a;
  return add(n);
}

node_id graph::add_cast(dtype to, node_id a) { return add_op(op::cast, to, {a}); }

void graph::add_output(node_id v, layout l, std::int32_t same_as_input) {
  if (v < 0 || static_cast<std::size_t>(v) >= nodes.size())
    throw error("jf::ir::graph::add_output: no node %" + std::to_string(v));
  outputs.push_back({v, {nodes[static_cast<std::size_t>(v)].type, l}, same_as_input});
}

namespace {

std::string short_name(dtype t) {
  switch (t) {
  case dtype::bool_: return "bool";
  case dtype::int32: return "i32";
  case dtype::int64: return "i64";
  case dtype::float32: return "f32";
  case dtype::float64: return "f64";
  }
  return "?";
}

std::string layout_name(layout l) {
  switch (l) {
  case layout::contiguous: return "contiguous";
  case layout::strided: return "strided";
  case layout::scalar: return "scalar";
  }
  return "?";
}

// Round-trip exact text of a constant (shortest is not needed: %.17g / %.9g round-trip).
std::string value_text(dtype t, const scalar_value& v) {
  char buf[64];
  switch (t) {
  case dtype::bool_: return v.i ? "true" : "false";
  case dtype::int32: case dtype::int64: return std::to_string(v.i);
  case dtype::float32: std::snprintf(buf, sizeof buf, "%.9g", v.f); return buf;
  case dtype::float64: std::snprintf(buf, sizeof buf, "%.17g", v.f); return buf;
  }
  return "?";
}

}  // namespace

std::string graph::to_string() const {
  std::ostringstream s;
  s << "graph ndim=" << ndim << " index=" << (index32 ? "int32" : "int64") << " vector_width=" << vector_width
    << "\n";
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const node& n = nodes[k];
    s << "%" << k << " = ";
    switch (n.code) {
    case op::input: {
      s << "input #" << n.index << " " << short_name(n.type);
      if (n.index >= 0 && static_cast<std::size_t>(n.index) < inputs.size())
        s << " " << layout_name(inputs[static_cast<std::size_t>(n.index)].lay);
      break;
    }
    case op::param: s << "param #" << n.index << " " << short_name(n.type); break;
    case op::constant: s << "constant " << short_name(n.type) << " " << value_text(n.type, n.value); break;
    default: {
      s << info(n.code).name << " " << short_name(n.type);
      for (int a = 0; a < n.nargs; ++a) s << (a ? ", %" : " %") << n.args[static_cast<std::size_t>(a)];
    }
    }
    s << "\n";
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const output_desc& o = outputs[k];
    s << "out #" << k << " <- %" << o.value << " (" << short_name(o.desc.type) << ", " << layout_name(o.desc.lay);
    if (o.same_as_input >= 0) s << ", same as input #" << o.same_as_input;
    s << ")\n";
  }
  return s.str();
}

namespace {

[[noreturn]] void bad(const graph& g, std::size_t k, const std::string& why) {
  throw error("jf::ir: invalid node %" + std::to_string(k) + " (" + std::string(info(g.nodes[k].code).name) +
              " " + std::string(name(g.nodes[k].type)) + "): " + why + "\n" + g.to_string());
}

void check_rule(const graph& g, std::size_t k) {
  const node& n = g.nodes[k];
  auto arg_type = [&](int a) { return g.nodes[static_cast<std::size_t>(n.args[static_cast<std::size_t>(a)])].type; };
  const op_rule rule = info(n.code).rule;
  if (rule == op_rule::select) {
    if (arg_type(0) != dtype::bool_) bad(g, k, "the condition of where must be bool");
    if (arg_type(1) != n.type || arg_type(2) != n.type) bad(g, k, "both values of where must have the result dtype");
    return;
  }
  const dtype compute = arg_type(0);
  for (int a = 1; a < n.nargs; ++a)
    if (arg_type(a) != compute) bad(g, k, "arguments of different dtypes (missing cast)");
  if (!accepts(rule, compute)) bad(g, k, "not defined for " + std::string(name(compute)));
  if (compute_dtype(rule, compute) != compute)
    bad(g, k, "arguments are " + std::string(name(compute)) + ", the compute dtype would be " +
                  std::string(name(compute_dtype(rule, compute))) + " (missing cast)");
  if (result_dtype(rule, compute) != n.type)
    bad(g, k, "the result dtype must be " + std::string(name(result_dtype(rule, compute))));
}

}  // namespace

void graph::validate() const {
  if (ndim < 0 || ndim > 64) throw error("jf::ir: invalid ndim " + std::to_string(ndim));
  const int w = vector_width;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    throw error("jf::ir: vector_width must be 1, 2, 4, 8 or 16, not " + std::to_string(w));
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const node& n = nodes[k];
    const op_info oi = info(n.code);
    if (n.nargs != oi.arity)
      bad(*this, k, "takes " + std::to_string(oi.arity) + " arguments, has " + std::to_string(n.nargs));
    for (int a = 0; a < 3; ++a) {
      const node_id id = n.args[static_cast<std::size_t>(a)];
      if (a >= n.nargs) {
        if (id != no_node) bad(*this, k, "unused argument slot " + std::to_string(a) + " is set");
      } else if (id < 0 || static_cast<std::size_t>(id) >= k) {
        bad(*this, k, "argument %" + std::to_string(id) + " is not an earlier node");
      }
    }
    switch (n.code) {
    case op::input:
      if (n.index < 0 || static_cast<std::size_t>(n.index) >= inputs.size())
        bad(*this, k, "no input #" + std::to_string(n.index));
      if (inputs[static_cast<std::size_t>(n.index)].type != n.type) bad(*this, k, "dtype differs from its input");
      break;
    case op::param:
      if (n.index < 0 || static_cast<std::size_t>(n.index) >= params.size())
        bad(*this, k, "no param #" + std::to_string(n.index));
      if (params[static_cast<std::size_t>(n.index)] != n.type) bad(*this, k, "dtype differs from its param");
      break;
    case op::constant:
      if (n.type == dtype::bool_ && n.value.i != 0 && n.value.i != 1) bad(*this, k, "bool constant not 0 or 1");
      if (n.type == dtype::int32 && static_cast<std::int32_t>(n.value.i) != n.value.i)
        bad(*this, k, "int32 constant out of range");
      if (n.type == dtype::float32 && !(static_cast<double>(static_cast<float>(n.value.f)) == n.value.f) &&
          n.value.f == n.value.f)
        bad(*this, k, "float32 constant not representable as float");
      break;
    case op::cast: break;
    default: check_rule(*this, k);
    }
  }
  auto check_operand = [&](const operand_desc& d, const std::string& what) {
    if (w > 1 && d.lay == layout::strided) throw error("jf::ir: " + what + " is strided with vector_width > 1");
    if (w > 1 && d.lay != layout::scalar && w * size_of(d.type) > 16)
      throw error("jf::ir: " + what + ": vector_width " + std::to_string(w) + " of " + std::string(name(d.type)) +
                  " exceeds 16 bytes");
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) check_operand(inputs[k], "input #" + std::to_string(k));
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const output_desc& o = outputs[k];
    const std::string what = "output #" + std::to_string(k);
    if (o.value < 0 || static_cast<std::size_t>(o.value) >= nodes.size())
      throw error("jf::ir: " + what + " refers to no node %" + std::to_string(o.value));
    if (nodes[static_cast<std::size_t>(o.value)].type != o.desc.type)
      throw error("jf::ir: " + what + " has dtype " + std::string(name(o.desc.type)) + ", its value " +
                  std::string(name(nodes[static_cast<std::size_t>(o.value)].type)));
    if (o.desc.lay == layout::scalar) throw error("jf::ir: " + what + " cannot have the scalar layout");
    if (o.same_as_input >= 0) {
      if (static_cast<std::size_t>(o.same_as_input) >= inputs.size())
        throw error("jf::ir: " + what + " shares memory with no input #" + std::to_string(o.same_as_input));
      const operand_desc& in = inputs[static_cast<std::size_t>(o.same_as_input)];
      if (in.type != o.desc.type || in.lay != o.desc.lay)
        throw error("jf::ir: " + what + " shares memory with input #" + std::to_string(o.same_as_input) +
                    " of another dtype or layout");
    } else if (o.same_as_input != -1) {
      throw error("jf::ir: " + what + ": same_as_input must be -1 or an input index");
    }
    check_operand(o.desc, what);
  }
}

int num_strided(const graph& g) {
  int s = 0;
  for (const output_desc& o : g.outputs) s += o.desc.lay == layout::strided;
  for (const operand_desc& i : g.inputs) s += i.lay == layout::strided;
  return s;
}

int abi_slots(const graph& g) {
  return static_cast<int>(g.outputs.size() + g.inputs.size() + g.params.size()) + 1 + g.ndim +
         g.ndim * num_strided(g);
}

}  // namespace jf::ir
