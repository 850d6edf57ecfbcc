// jf::ir::graph: builders, the readable listing and the invariant checker.
#include "jetfuse/ir/graph.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "jetfuse/detail/user_functions.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/scalar_ops.hpp"

namespace jf::ir {

const char* generator_name(generator g) {
  switch (g) {
  case generator::none: return "none";
  case generator::philox_f64: return "random_f64";
  case generator::philox_f32: return "random_f32";
  case generator::normal_f64: return "normal_f64";
  case generator::normal_f32: return "normal_f32";
  case generator::integers: return "integers";
  }
  return "?";
}

const char* bit_generator_name(bit_generator b) { return b == bit_generator::philox4x32 ? "philox4x32" : "philox4x64"; }


scalar_value scalar_value::of(dtype t, double v) {
  scalar_value s;
  visit_dtype(t, [&](auto ti) {
    using T = typename decltype(ti)::type;
    if constexpr (std::is_floating_point_v<T>) s.f = static_cast<double>(jf::ops::jf_cast<T>(v));
    else s.i = static_cast<std::int64_t>(jf::ops::jf_cast<T>(v));  // uint64: its bits
  });
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

node_id graph::add_check_index(node_id position, node_id size, gather_mode mode, int axis, int rank) {
  if (mode == gather_mode::unchecked) throw error("jf::ir::graph::add_check_index: a check cannot be unchecked");
  node n;
  n.code = op::check_index;
  n.type = dtype::int64;
  n.nargs = 2;
  n.args = {position, size, no_node};
  n.attr[0] = static_cast<std::int64_t>(mode) | (static_cast<std::int64_t>(axis) << 2);
  n.attr[1] = rank;
  n.domain = at(position).domain;
  return add(n);
}

node_id graph::add_gather(std::int32_t input, node_id position, node_id size, node_id stride, gather_mode mode, int axis) {
  if (input < 0 || static_cast<std::size_t>(input) >= inputs.size()) throw error("jf::ir::graph::add_gather: no such input");
  node n;
  n.code = op::gather;
  n.type = inputs[static_cast<std::size_t>(input)].type;
  n.index = input;
  n.nargs = 3;
  n.args = {position, size, stride};
  n.attr[0] = static_cast<std::int64_t>(mode) | (static_cast<std::int64_t>(axis) << 2);
  n.domain = at(position).domain;
  return add(n);
}

node_id graph::add_search(std::int32_t input, node_id value, node_id size, node_id stride, bool right) {
  if (input < 0 || static_cast<std::size_t>(input) >= inputs.size()) throw error("jf::ir::graph::add_search: no such input");
  node n;
  n.code = op::search;
  n.type = dtype::int64;
  n.index = input;
  n.nargs = 3;
  n.args = {value, size, stride};
  n.attr[0] = right ? 1 : 0;
  n.domain = at(value).domain;
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

namespace {
// Constants, params and extents are the same in every iteration: usable from any domain.
bool uniform(const node& n) { return n.code == op::constant || n.code == op::param || n.code == op::extent; }
}  // namespace

node_id graph::add_op(jf::op code, dtype result, std::initializer_list<node_id> args) {
  if (args.size() > 3) throw error("jf::ir::graph::add_op: at most 3 arguments");
  node n;
  n.code = code;
  n.type = result;
  n.nargs = static_cast<std::int8_t>(args.size());
  int k = 0;
  bool placed = false;
  for (node_id a : args) {
    n.args[static_cast<std::size_t>(k++)] = a;
    // An element-wise node runs in its arguments' domain (validate() checks they agree).
    if (a >= 0 && static_cast<std::size_t>(a) < nodes.size() && !uniform(at(a)) && !placed) {
      n.domain = at(a).domain;
      placed = true;
    }
  }
  return add(n);
}

void graph::set_map_rank(int rank) {
  ndim = rank;
  domains.resize(2);
  domains[1] = domain{domain_kind::box, 0, {}, -1, 0};
  for (int a = 0; a < rank; ++a) domains[1].axes.push_back(a);
}

domain_id graph::add_box(domain_id parent, std::vector<std::int32_t> axes) {
  if (parent < 0 || static_cast<std::size_t>(parent) >= domains.size())
    throw error("jf::ir::graph::add_box: no domain " + std::to_string(parent));
  domains.push_back(domain{domain_kind::box, parent, std::move(axes), -1, 0});
  return static_cast<domain_id>(domains.size() - 1);
}

domain_id graph::add_list(std::int32_t offsets, std::int32_t axis) {
  domains.push_back(domain{domain_kind::list, 0, {axis}, offsets, 0});
  return static_cast<domain_id>(domains.size() - 1);
}

domain_id graph::add_elements(domain_id list, std::int32_t element_axis) {
  if (list <= 0 || static_cast<std::size_t>(list) >= domains.size() || dom(list).kind != domain_kind::list)
    throw error("jf::ir::graph::add_elements: D" + std::to_string(list) + " is not a list domain");
  domains.push_back(domain{domain_kind::elements, list, {element_axis}, -1, 0});
  return static_cast<domain_id>(domains.size() - 1);
}

domain_id graph::add_pairs(domain_id list, std::int32_t arity, std::int32_t first_axis) {
  if (list <= 0 || static_cast<std::size_t>(list) >= domains.size() || dom(list).kind != domain_kind::list)
    throw error("jf::ir::graph::add_pairs: D" + std::to_string(list) + " is not a list domain");
  if (arity != 2 && arity != 3) throw error("jf::ir::graph::add_pairs: arity " + std::to_string(arity) + " (2 or 3)");
  domain d{domain_kind::pairs, list, {}, -1, arity};
  for (std::int32_t k = 0; k < arity; ++k) d.axes.push_back(first_axis + k);
  domains.push_back(d);
  return static_cast<domain_id>(domains.size() - 1);
}

domain_id graph::add_product(domain_id list, std::int32_t offsets_b, std::int32_t first_axis) {
  if (list <= 0 || static_cast<std::size_t>(list) >= domains.size() || dom(list).kind != domain_kind::list)
    throw error("jf::ir::graph::add_product: D" + std::to_string(list) + " is not a list domain");
  domains.push_back(domain{domain_kind::product, list, {first_axis, first_axis + 1}, offsets_b, 2});
  return static_cast<domain_id>(domains.size() - 1);
}

node_id graph::add_reduce(monoid m, node_id x, node_id guard, domain_id into) {
  node n;
  n.code = op::reduce;
  n.type = is_arg_monoid(m) ? dtype::int64 : at(x).type;
  n.nargs = guard == no_node ? 1 : 2;
  n.args[0] = x;
  n.args[1] = guard;
  n.attr[0] = static_cast<std::int64_t>(m);
  n.domain = into >= 0 ? into : dom(at(x).domain).parent;
  return add(n);
}

node_id graph::add_scatter(monoid m, node_id value, node_id index, node_id guard, domain_id into) {
  node n;
  n.code = op::scatter;
  n.type = at(value).type;
  n.nargs = guard == no_node ? 2 : 3;
  n.args = {value, index, guard};
  n.attr[0] = static_cast<std::int64_t>(m);
  n.domain = into;
  return add(n);
}

const char* put_rule_name(put_rule r) {
  switch (r) {
  case put_rule::store: return "store";
  case put_rule::add: return "add";
  case put_rule::subtract: return "subtract";
  case put_rule::multiply: return "multiply";
  case put_rule::minimum: return "minimum";
  case put_rule::maximum: return "maximum";
  case put_rule::store_any:
    return "store_any";
  }
  return "?";
}

jf::op put_rule_op(put_rule r) {
  switch (r) {
  case put_rule::add: return op::add;
  case put_rule::subtract: return op::subtract;
  case put_rule::multiply: return op::multiply;
  case put_rule::minimum: return op::minimum;
  case put_rule::maximum: return op::maximum;
  case put_rule::store:
  case put_rule::store_any:
    break;
  }
  return op::input;
}

node_id graph::add_put(put_rule rule, dtype target_type, node_id value, node_id index, domain_id target,
                       domain_id claims, domain_id in, gather_mode mode, int axis, bool known_in_bounds,
                       bool known_repeats, put_winners winners) {
  node n;
  n.code = op::put;
  n.type = target_type;
  n.nargs = 2;
  n.args = {value, index, no_node};
  n.index = claims;
  n.attr[0] = target;
  n.attr[1] = static_cast<std::int64_t>(rule) | (static_cast<std::int64_t>(mode) << 8) |
              (static_cast<std::int64_t>(known_in_bounds) << 10) | (static_cast<std::int64_t>(known_repeats) << 11) |
              (static_cast<std::int64_t>(winners) << 12) | (static_cast<std::int64_t>(axis) << 16);
  n.domain = in;
  return add(n);
}

node_id graph::add_scan(monoid m, node_id x, std::int32_t axis) {
  node n;
  n.code = op::scan;
  n.type = at(x).type;
  n.nargs = 1;
  n.args[0] = x;
  n.attr[0] = static_cast<std::int64_t>(m) | (static_cast<std::int64_t>(axis + 1) << 8);
  n.domain = at(x).domain;
  return add(n);
}

node_id graph::add_store(node_id value, node_id index, node_id guard, domain_id into) {
  const node_id k = add_scatter(monoid::sum, value, index, guard, into);
  nodes[static_cast<std::size_t>(k)].attr[0] = scatter_store;
  return k;
}

node_id graph::add_index(domain_id d, std::int32_t axis) {
  node n;
  n.code = op::index;
  n.type = dtype::int64;
  n.attr[0] = axis;
  n.domain = d;
  return add(n);
}

node_id graph::add_broadcast(node_id x, domain_id into) {
  node n;
  n.code = op::broadcast;
  n.type = at(x).type;
  n.nargs = 1;
  n.args[0] = x;
  n.domain = into;
  return add(n);
}

node_id graph::add_extent(domain_id counted) {
  node n;
  n.code = op::extent;
  n.type = dtype::int64;
  n.attr[0] = counted;
  n.domain = dom(counted).parent;
  return add(n);
}

bool graph::encloses(domain_id outer, domain_id inner) const {
  for (domain_id d = inner; d >= 0; d = dom(d).parent)
    if (d == outer) return true;
  return false;
}

std::vector<std::int32_t> graph::chain_axes(domain_id d) const {
  std::vector<domain_id> path;
  for (; d > 0; d = dom(d).parent) path.push_back(d);
  std::vector<std::int32_t> axes;
  for (auto it = path.rbegin(); it != path.rend(); ++it)
    for (std::int32_t a : dom(*it).axes) axes.push_back(a);
  return axes;
}

bool graph::is_map() const {
  if (loop_nest || domains.size() != 2) return false;
  for (const node& n : nodes)
    if (n.code == op::reduce || n.code == op::scatter || n.code == op::put || n.code == op::scan || n.code == op::index ||
        n.code == op::broadcast || n.code == op::extent ||
        (n.domain != node::map_domain && !uniform(n)))
      return false;
  return true;
}

node_id graph::add_cast(dtype to, node_id a) { return add_op(op::cast, to, {a}); }

void graph::add_output(node_id v, layout l, std::int32_t same_as_input) {
  if (v < 0 || static_cast<std::size_t>(v) >= nodes.size())
    throw error("jf::ir::graph::add_output: no node %" + std::to_string(v));
  outputs.push_back({v, {nodes[static_cast<std::size_t>(v)].type, l}, same_as_input, nodes[static_cast<std::size_t>(v)].domain});
}

namespace {

std::string short_name(dtype t) {
  switch (t) {
  case dtype::bool_: return "bool";
  case dtype::int8: return "i8";
  case dtype::int16: return "i16";
  case dtype::int32: return "i32";
  case dtype::int64: return "i64";
  case dtype::uint8: return "u8";
  case dtype::uint16: return "u16";
  case dtype::uint32: return "u32";
  case dtype::uint64: return "u64";
  case dtype::float32: return "f32";
  case dtype::float64: return "f64";
  }
  return "?";
}

// "root" or "D3" (appended, not built with operator+: g++ 12's -Wrestrict misfires on that).
std::string domain_name(domain_id d) {
  if (d == 0) return "root";
  std::string s("D");
  s += std::to_string(d);
  return s;
}

std::string_view domain_kind_name(domain_kind k) {
  switch (k) {
  case domain_kind::root: return "root";
  case domain_kind::box: return "box";
  case domain_kind::list: return "list";
  case domain_kind::elements: return "elements";
  case domain_kind::pairs: return "pairs";
  case domain_kind::product: return "product";
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

// Whether v is a value of integer dtype t (uint64: any bits).
bool integer_in_range(dtype t, std::int64_t v) {
  if (size_of(t) == 8) return true;
  const int bits = 8 * size_of(t);
  if (is_unsigned_integer(t)) return v >= 0 && v < (std::int64_t{1} << bits);
  return v >= -(std::int64_t{1} << (bits - 1)) && v < (std::int64_t{1} << (bits - 1));
}

// Round-trip exact text of a constant (shortest is not needed: %.17g / %.9g round-trip).
std::string value_text(dtype t, const scalar_value& v) {
  char buf[64];
  switch (t) {
  case dtype::bool_: return v.i ? "true" : "false";
  case dtype::uint64: return std::to_string(static_cast<std::uint64_t>(v.i));
  case dtype::float32: std::snprintf(buf, sizeof buf, "%.9g", v.f); return buf;
  case dtype::float64: std::snprintf(buf, sizeof buf, "%.17g", v.f); return buf;
  default: return std::to_string(v.i);
  }
}

}  // namespace

std::string graph::to_string() const {
  std::ostringstream s;
  s << "graph ndim=" << ndim << " index=" << (index32 ? "int32" : "int64") << " vector_width=" << vector_width
    << "\n";
  const bool nested = !is_map();
  if (nested) {
    for (std::size_t d = 1; d < domains.size(); ++d) {
      const domain& dm = domains[d];
      s << "domain D" << d << " = " << domain_kind_name(dm.kind);
      if (dm.kind != domain_kind::root) {
        s << "(";
        for (std::size_t a = 0; a < dm.axes.size(); ++a) s << (a ? ", " : "") << "axis " << dm.axes[a];
        if (dm.kind == domain_kind::list || dm.kind == domain_kind::product) s << ", offsets #" << dm.source;
        if (dm.kind == domain_kind::list && dm.longest >= 0) s << ", lists of at most " << dm.longest;
        if (dm.kind == domain_kind::list && dm.short_on_average)
          s << ", at most " << list_mean_short << " elements a list on average";
        s << ")";
      }
      s << " in " << domain_name(dm.parent) << "\n";
    }
  }
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const node& n = nodes[k];
    s << "%" << k << " = ";
    switch (n.code) {
    case op::input: {
      s << "input #" << n.index << " " << short_name(n.type);
      if (n.index >= 0 && static_cast<std::size_t>(n.index) < inputs.size()) {
        const operand_desc& in = inputs[static_cast<std::size_t>(n.index)];
        s << " " << layout_name(in.lay);
        if (in.stride_class >= 0) s << " class " << static_cast<int>(in.stride_class);
        if (in.slot >= 0) s << " slot " << static_cast<int>(in.slot);
        if (in.gen != generator::none)
          s << " generated: " << bit_generator_name(in.bits) << " " << generator_name(in.gen) << " (key #" << in.param << ", #" << in.param + 1
            << ", first #" << in.param + 2 << ", aux #" << in.param + 3 << ")";
      }
      break;
    }
    case op::param: s << "param #" << n.index << " " << short_name(n.type); break;
    case op::constant: s << "constant " << short_name(n.type) << " " << value_text(n.type, n.value); break;
    case op::reduce:
      s << "reduce " << name(static_cast<monoid>(n.attr[0])) << " " << short_name(n.type) << " %" << n.args[0];
      if (n.nargs == 2) s << " if %" << n.args[1];
      break;
    case op::index:
      if (n.attr[0] < 0) s << "index flat";
      else s << "index along axis " << n.attr[0];
      break;
    case op::scatter:
      s << "scatter " << (stores(n) ? std::string_view("store") : name(static_cast<monoid>(n.attr[0]))) << " "
        << short_name(n.type) << " %" << n.args[0] << " at %"
        << n.args[1];
      if (n.nargs == 3) s << " if %" << n.args[2];
      break;
    case op::extent: s << "extent D" << n.attr[0]; break;
    case op::put: {
      static const char* const modes[] = {"raise", "wrap", "clip", "?"};
      s << "put " << put_rule_name(rule_of_put(n)) << " " << short_name(n.type) << " %" << n.args[0] << " at %"
        << n.args[1] << " into " << domain_name(target_of_put(n)) << " (claims over " << domain_name(claims_of_put(n))
        << ", axis " << axis_of_put(n) << ", " << modes[static_cast<int>(mode_of_put(n))]
        << (put_known_in_bounds(n) ? ", remembered in bounds" : "")
        << (put_known_repeats(n) ? ", remembered repeats" : "")
        << (winners_of_put(n) == put_winners::build ? ", winners found"
            : winners_of_put(n) == put_winners::use ? ", remembered winners"
                                                    : "")
        << ")";
      break;
    }
    case op::scan:
      s << "scan " << name(monoid_of_scan(n)) << " " << short_name(n.type) << " %" << n.args[0];
      if (axis_of_scan(n) < 0) s << " flattened";
      else s << " along axis " << axis_of_scan(n);
      break;
    case op::search:
      s << "search " << (n.attr[0] ? "right" : "left") << " input #" << n.index << " for %" << n.args[0] << " (size %"
        << n.args[1] << ", stride %" << n.args[2] << ")";
      break;
    case op::user: {
      s << "user #" << n.attr[0] << " " << short_name(n.type);
      for (int a = 0; a < n.nargs; ++a) s << (a ? ", %" : " %") << n.args[static_cast<std::size_t>(a)];
      break;
    }
    case op::check_index: {
      static const char* const modes[] = {"raise", "wrap", "clip", "?"};
      s << "check_index %" << n.args[0] << " (size %" << n.args[1] << ", axis " << axis_of_gather(n) << ", "
        << modes[static_cast<int>(mode_of_gather(n))] << ", rank " << rank_of_check(n) << ")";
      break;
    }
    case op::gather: {
      static const char* const modes[] = {"raise", "wrap", "clip", "unchecked"};
      s << "gather " << short_name(n.type) << " input #" << n.index << " at %" << n.args[0] << " (size %" << n.args[1]
        << ", stride %" << n.args[2] << ", axis " << axis_of_gather(n) << ", " << modes[static_cast<int>(mode_of_gather(n))]
        << ")";
      break;
    }
    default: {
      s << info(n.code).name << " " << short_name(n.type);
      for (int a = 0; a < n.nargs; ++a) s << (a ? ", %" : " %") << n.args[static_cast<std::size_t>(a)];
    }
    }
    if (nested && !uniform(n)) s << " @ " << domain_name(n.domain);
    s << "\n";
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const output_desc& o = outputs[k];
    s << "out #" << k << " <- %" << o.value << " (" << short_name(o.desc.type) << ", " << layout_name(o.desc.lay);
    if (o.desc.stride_class >= 0) s << " class " << static_cast<int>(o.desc.stride_class);
    if (o.same_as_input >= 0) s << ", same as input #" << o.same_as_input;
    s << ")";
    if (nested) s << " @ " << domain_name(o.domain);
    s << "\n";
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
  if (domains.empty() || domains[0].kind != domain_kind::root || domains[0].parent != -1)
    throw error("jf::ir: domain 0 must be the root");
  for (std::size_t d = 1; d < domains.size(); ++d) {
    const domain& dm = domains[d];
    if (dm.parent < 0 || static_cast<std::size_t>(dm.parent) >= d)
      throw error("jf::ir: domain D" + std::to_string(d) + " must have an earlier domain as its parent");
    if (dm.kind == domain_kind::root) throw error("jf::ir: domain D" + std::to_string(d) + " is a second root");
    if (dm.kind != domain_kind::root)
      for (std::int32_t a : dm.axes)
        if (a < 0 || a >= ndim) throw error("jf::ir: domain D" + std::to_string(d) + " has no axis " + std::to_string(a));
    const std::string named = "jf::ir: domain D" + std::to_string(d);
    if (dm.kind == domain_kind::list) {
      if (dm.parent != 0 || dm.axes.size() != 1) throw error(named + ": a list domain has one axis, under the root");
      if (dm.source < 0 || static_cast<std::size_t>(dm.source) >= inputs.size() ||
          (inputs[static_cast<std::size_t>(dm.source)].type != dtype::int64 &&
           inputs[static_cast<std::size_t>(dm.source)].type != dtype::int32))
        throw error(named + ": its offsets must be an int64 or int32 input");
      if (dm.longest != -1 && list_length_class(dm.longest) != dm.longest)
        throw error(named + ": its longest list (" + std::to_string(dm.longest) + ") must be -1 or a list_length_classes value");
    }
    if (dm.kind == domain_kind::elements &&
        (dm.axes.size() != 1 || domains[static_cast<std::size_t>(dm.parent)].kind != domain_kind::list))
      throw error(named + ": an elements domain has one axis, under a list domain");
    if (dm.kind == domain_kind::pairs &&
        ((dm.arity != 2 && dm.arity != 3) || dm.axes.size() != static_cast<std::size_t>(dm.arity) ||
         domains[static_cast<std::size_t>(dm.parent)].kind != domain_kind::list))
      throw error(named + ": a pairs domain has `arity` (2 or 3) axes, under a list domain");
    if (dm.kind == domain_kind::product &&
        (dm.arity != 2 || dm.axes.size() != 2 || domains[static_cast<std::size_t>(dm.parent)].kind != domain_kind::list ||
         dm.source < 0 || static_cast<std::size_t>(dm.source) >= inputs.size() ||
         (inputs[static_cast<std::size_t>(dm.source)].type != dtype::int64 &&
          inputs[static_cast<std::size_t>(dm.source)].type != dtype::int32)))
      throw error(named + ": a product domain has two axes, under a list domain, and b's offsets as an int64 or int32 "
                          "input");
  }
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const node& n = nodes[k];
    const op_info oi = info(n.code);
    // Constants, params and extents belong to no loop: their domain field is not looked at.
    if (!uniform(n) && (n.domain < 0 || static_cast<std::size_t>(n.domain) >= domains.size()))
      bad(*this, k, "no domain D" + std::to_string(n.domain));
    if ((n.code == op::reduce && n.nargs == 2) || (n.code == op::scatter && n.nargs == 3) ||
        (n.code == op::user && n.nargs >= 1)) {
      // with a guard: checked below
    } else if (n.nargs != oi.arity)
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
      if (is_integer(n.type) && !integer_in_range(n.type, n.value.i))
        bad(*this, k, std::string(name(n.type)) + " constant out of range");
      if (n.type == dtype::float32 && !(static_cast<double>(static_cast<float>(n.value.f)) == n.value.f) &&
          n.value.f == n.value.f)
        bad(*this, k, "float32 constant not representable as float");
      break;
    case op::cast: break;
    case op::reduce: {
      const node& x = at(n.args[0]);
      if (uniform(x) || x.domain == n.domain || !encloses(n.domain, x.domain))
        bad(*this, k, "must be in a proper ancestor of its argument's domain");
      if (n.type != (is_arg_monoid(static_cast<monoid>(n.attr[0])) ? dtype::int64 : x.type))
        bad(*this, k, "the result dtype must be its argument's (int64 for argmin/argmax)");
      if (n.attr[0] < 0 || n.attr[0] > static_cast<std::int64_t>(monoid::nanmax)) bad(*this, k, "unknown monoid");
      if (n.nargs == 2 && (at(n.args[1]).type != dtype::bool_ || (!uniform(at(n.args[1])) && at(n.args[1]).domain != x.domain)))
        bad(*this, k, "the guard must be bool, in its argument's domain");
      continue;
    }
    case op::scatter: {
      const node& v = at(n.args[0]);
      const node& i = at(n.args[1]);
      if (uniform(i) || i.type != dtype::int64) bad(*this, k, "the index must be int64 and vary");
      if (n.domain <= 0 || dom(n.domain).kind != domain_kind::box || dom(n.domain).axes.size() != 1)
        bad(*this, k, "must be in a box domain of one axis");
      if (!encloses(dom(n.domain).parent, i.domain) || encloses(n.domain, i.domain))
        bad(*this, k, "its domain's parent must enclose the index's domain, its domain must not");
      if (!uniform(v) && v.domain != i.domain) bad(*this, k, "the value must be in the index's domain");
      if (n.type != v.type) bad(*this, k, "the result dtype must be its value's");
      if (!stores(n) &&
          (static_cast<monoid>(n.attr[0]) != monoid::sum || (n.type != dtype::int32 && n.type != dtype::int64)))
        bad(*this, k, "only sums of int32 or int64 and stores are supported");
      if (n.nargs == 3 && (at(n.args[2]).type != dtype::bool_ || (!uniform(at(n.args[2])) && at(n.args[2]).domain != i.domain)))
        bad(*this, k, "the guard must be bool, in the index's domain");
      continue;
    }
    case op::scan: {
      const node& x = at(n.args[0]);
      if (uniform(x) || x.domain != n.domain) bad(*this, k, "must be in its argument's domain, which varies");
      if (n.type != x.type) bad(*this, k, "the result dtype must be its argument's");
      if (n.type == dtype::bool_) bad(*this, k, "scans bool: cast to int64 first (numpy's cumsum of bool is int64)");
      const monoid m = monoid_of_scan(n);
      if ((n.attr[0] & 0xff) > static_cast<std::int64_t>(monoid::nanmax) || (m != monoid::sum && m != monoid::prod))
        bad(*this, k, "only sum and prod scans are supported");
      const auto chain = chain_axes(n.domain);
      const std::int32_t ax = axis_of_scan(n);
      if (ax < -1 || (ax >= 0 && std::find(chain.begin(), chain.end(), ax) == chain.end()))
        bad(*this, k, "scans along axis " + std::to_string(ax) + ", which its domain's chain lacks");
      continue;
    }
    case op::broadcast:
      if (n.type != at(n.args[0]).type) bad(*this, k, "dtype differs from its argument");
      // From an enclosing domain (fusable), or from any domain whose axes are all axes of this
      // one (the planner then stores the value first and reads it back by strides).
      if (!uniform(at(n.args[0])) && !encloses(at(n.args[0]).domain, n.domain)) {
        const auto from = chain_axes(at(n.args[0]).domain), to = chain_axes(n.domain);
        for (std::int32_t a : from)
          if (std::find(to.begin(), to.end(), a) == to.end())
            bad(*this, k, "its argument's domain has axis " + std::to_string(a) + ", which this domain lacks");
      }
      continue;
    case op::put: {
      const node& v = at(n.args[0]);
      const node& i = at(n.args[1]);
      const domain_id w = target_of_put(n), c = claims_of_put(n);
      if (i.type != dtype::int64) bad(*this, k, "the index must be int64");
      if (w <= 0 || static_cast<std::size_t>(w) >= domains.size() || dom(w).kind != domain_kind::box ||
          dom(w).axes.size() != 1 || dom(w).parent != 0)
        bad(*this, k, "its target must be a box domain of one axis under the root");
      if (c < 0 || static_cast<std::size_t>(c) >= domains.size() || !encloses(c, n.domain))
        bad(*this, k, "its claim domain must enclose its own");
      if (encloses(w, n.domain) || encloses(w, c)) bad(*this, k, "its target must not enclose its domain");
      if (!uniform(v) && v.domain != n.domain) bad(*this, k, "the value must be in the node's domain");
      if (!uniform(i) && i.domain != c) bad(*this, k, "the index must be in the claim domain");
      if (static_cast<int>(rule_of_put(n)) > static_cast<int>(put_rule::store_any)) bad(*this, k, "unknown rule");
      if ((n.attr[1] >> 8 & 3) == 3) bad(*this, k, "unknown mode");
      if ((rule_of_put(n) == put_rule::store || rule_of_put(n) == put_rule::store_any) && n.type != v.type)
        bad(*this, k, "a stored value has the target's dtype");
      bool output = false;
      for (const output_desc& o : outputs) output = output || o.value == static_cast<node_id>(k);
      if (!output) bad(*this, k, "must be the value of an output");
      continue;
    }
    case op::index: {
      const auto chain = chain_axes(n.domain);
      if (n.type != dtype::int64) bad(*this, k, "the index is int64");
      if (n.attr[0] < -1 || (n.attr[0] >= 0 && std::find(chain.begin(), chain.end(), n.attr[0]) == chain.end()))
        bad(*this, k, "along axis " + std::to_string(n.attr[0]) + ", which its domain's chain lacks");
      continue;
    }
    case op::extent:
      if (n.type != dtype::int64 || n.attr[0] <= 0 || static_cast<std::size_t>(n.attr[0]) >= domains.size())
        bad(*this, k, "must be int64 and count a domain other than the root");
      if (dom(static_cast<domain_id>(n.attr[0])).kind == domain_kind::elements ||
          is_tuple_domain(dom(static_cast<domain_id>(n.attr[0])).kind))
        bad(*this, k, "counts an elements, pairs or product domain (a list's length varies: reduce a sum of ones instead)");
      continue;
    case op::user: {
      const detail::user_function& f = detail::user_function_at(n.attr[0]);
      if (n.nargs != f.arity) bad(*this, k, "takes " + std::to_string(f.arity) + " arguments (its function's)");
      if (n.type != f.result) bad(*this, k, "dtype differs from its function's result");
      for (int a = 0; a < n.nargs; ++a) {
        const node& x = at(n.args[static_cast<std::size_t>(a)]);
        if (x.type != f.params[static_cast<std::size_t>(a)]) bad(*this, k, "an argument's dtype differs from its function's");
        if (!uniform(x) && x.domain != n.domain) bad(*this, k, "an argument is in another domain");
      }
      continue;
    }
    case op::search: {
      if (n.index < 0 || static_cast<std::size_t>(n.index) >= inputs.size()) bad(*this, k, "no input #" + std::to_string(n.index));
      if (inputs[static_cast<std::size_t>(n.index)].gen != generator::none) bad(*this, k, "searches a generated input");
      if (n.type != dtype::int64) bad(*this, k, "the result is an int64 index");
      const node& v = at(n.args[0]);
      if (!uniform(v) && v.domain != n.domain) bad(*this, k, "must be in its value's domain");
      for (int a = 1; a < 3; ++a)
        if (at(n.args[static_cast<std::size_t>(a)]).type != dtype::int64 || !uniform(at(n.args[static_cast<std::size_t>(a)])))
          bad(*this, k, "size and stride must be uniform int64 values");
      if (n.attr[0] != 0 && n.attr[0] != 1) bad(*this, k, "side must be 0 (left) or 1 (right)");
      continue;
    }
    case op::gather: {
      if (n.index < 0 || static_cast<std::size_t>(n.index) >= inputs.size()) bad(*this, k, "no input #" + std::to_string(n.index));
      const operand_desc& in = inputs[static_cast<std::size_t>(n.index)];
      if (in.type != n.type) bad(*this, k, "dtype differs from its input");
      if (in.gen != generator::none) bad(*this, k, "gathers from a generated input");
      const node& pos = at(n.args[0]);
      if (pos.type != dtype::int64) bad(*this, k, "the position must be int64");
      if (!uniform(pos) && pos.domain != n.domain) bad(*this, k, "must be in its position's domain");
      for (int a = 1; a < 3; ++a)
        if (at(n.args[static_cast<std::size_t>(a)]).type != dtype::int64 || !uniform(at(n.args[static_cast<std::size_t>(a)])))
          bad(*this, k, "size and stride must be uniform int64 values");
      if (n.attr[0] < 0) bad(*this, k, "unknown mode");
      continue;
    }
    case op::check_index: {
      if (n.type != dtype::int64) bad(*this, k, "must be int64");
      const node& pos = at(n.args[0]);
      if (pos.type != dtype::int64) bad(*this, k, "the position must be int64");
      if (!uniform(pos) && pos.domain != n.domain) bad(*this, k, "must be in its position's domain");
      if (at(n.args[1]).type != dtype::int64 || !uniform(at(n.args[1])))
        bad(*this, k, "the size must be a uniform int64 value");
      if ((n.attr[0] & 3) == 3 || n.attr[0] < 0 || n.attr[1] < 0) bad(*this, k, "unknown mode or rank");
      continue;
    }
    default: check_rule(*this, k);
    }
    for (int a = 0; a < n.nargs; ++a) {
      const node& x = at(n.args[static_cast<std::size_t>(a)]);
      if (!uniform(x) && x.domain != n.domain)
        bad(*this, k, "argument %" + std::to_string(n.args[static_cast<std::size_t>(a)]) + " is in domain D" +
                          std::to_string(x.domain) + ", not in this node's (broadcast it first)");
    }
  }
  auto check_operand = [&](const operand_desc& d, const std::string& what) {
    if (w > 1 && d.lay == layout::strided) throw error("jf::ir: " + what + " is strided with vector_width > 1");
    if (d.stride_class < -1 || (d.stride_class >= 0 && d.lay != layout::strided))
      throw error("jf::ir: " + what + " has stride class " + std::to_string(d.stride_class) +
                  " (only strided operands have one)");
    if (w > 1 && d.lay != layout::scalar && w * size_of(d.type) > 16)
      throw error("jf::ir: " + what + ": vector_width " + std::to_string(w) + " of " + std::string(name(d.type)) +
                  " exceeds 16 bytes");
  };
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const operand_desc& in = inputs[k];
    check_operand(in, "input #" + std::to_string(k));
    if (in.slot < -1 || in.slot > 3) throw error("jf::ir: input #" + std::to_string(k) + " has slot " + std::to_string(in.slot));
    if (in.gen == generator::none) continue;
    const std::string what = "generated input #" + std::to_string(k);
    const bool f64 = in.gen == generator::philox_f64 || in.gen == generator::normal_f64;
    const bool ok = in.gen == generator::integers ? (in.type == dtype::int32 || in.type == dtype::int64)
                                                  : in.type == (f64 ? dtype::float64 : dtype::float32);
    if (!ok)
      throw error("jf::ir: " + what + " has dtype " + std::string(name(in.type)) + ", not its generator's");
    if (in.param < 0 || static_cast<std::size_t>(in.param) + 4 > params.size())
      throw error("jf::ir: " + what + " has no params #" + std::to_string(in.param) + "..+3");
    for (int j = 0; j < 4; ++j)
      if (params[static_cast<std::size_t>(in.param + j)] != dtype::int64)
        throw error("jf::ir: " + what + ": its params must be int64");
  }
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

bool has_unravel_divisors(const graph& g) { return g.index32 && g.ndim >= 2 && num_strided(g) > 0; }

std::uint64_t unravel_divisor(std::int64_t d) {
  if (d < 1 || d >= (std::int64_t(1) << 31))
    throw error("jf::ir::unravel_divisor: extent " + std::to_string(d) + " out of range");
  std::uint64_t l = 0;
  while ((std::uint64_t(1) << l) < static_cast<std::uint64_t>(d)) ++l;
  const std::uint64_t ud = static_cast<std::uint64_t>(d);
  const std::uint64_t m = ((std::uint64_t(1) << 32) * ((std::uint64_t(1) << l) - ud)) / ud + 1;
  return m | (l << 32);
}

int abi_slots(const graph& g) {
  return static_cast<int>(g.outputs.size() + g.inputs.size() + g.params.size()) + 1 + g.ndim + g.ndim * num_strided(g) +
         (has_unravel_divisors(g) ? g.ndim - 1 : 0);
}

}  // namespace jf::ir
