// CUDA C++ generation. The kernel is meant to be read (jf::explain, JF_SHOW_KERNELS): a comment
// with the IR, one named constant per node, one grid-stride loop. All arithmetic goes through the
// jf::ops functions of the prelude, so it is exactly what the CPU evaluator computes; fast math is
// an NVRTC option only, never a different source.
#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "cuda/codegen/codegen_detail.hpp"
#include "jetfuse/detail/user_functions.hpp"
#include "jetfuse/errors.hpp"
#include "jetfuse/ir/codegen.hpp"

namespace jf::ir {

std::string_view cuda_type(dtype t) {
  switch (t) {
  case dtype::bool_: return "bool";
  case dtype::int8: return "signed char";
  case dtype::int16: return "short";
  case dtype::int32: return "int";
  case dtype::int64: return "long long";
  case dtype::uint8: return "unsigned char";
  case dtype::uint16: return "unsigned short";
  case dtype::uint32: return "unsigned int";
  case dtype::uint64: return "unsigned long long";
  case dtype::float32: return "float";
  case dtype::float64: return "double";
  }
  return "?";
}

namespace codegen_detail {

// The scalar function of an operation: jf::ops::jf_<opcode> (the opcode, not numpy's name:
// op::true_divide is numpy's "divide").
std::string_view function_name(op o) {
  switch (o) {
#define JF_X(code, nm, ar, rl) \
  case op::code: return "jf_" #code;
    JF_ELEMENTWISE_OPS(JF_X)
#undef JF_X
  default: return "?";
  }
}

std::string call_name(const node& n) {
  if (n.code == op::user)
    return "jf_udf_" + std::to_string(n.attr[0]) + "_" + detail::user_function_at(n.attr[0]).name;
  return "jf::ops::" + std::string(function_name(n.code));
}

std::string user_functions(const graph& g) {
  std::vector<std::int64_t> ids;
  for (const node& n : g.nodes)
    if (n.code == op::user && std::find(ids.begin(), ids.end(), n.attr[0]) == ids.end()) ids.push_back(n.attr[0]);
  static const char* const names[] = {"x", "y", "z"};
  std::string s;
  for (std::int64_t id : ids) {
    const detail::user_function& f = detail::user_function_at(id);
    const std::string k = std::to_string(id);
    s += "\n#ifndef JF_UDF_" + k + "\n#define JF_UDF_" + k + "\n// jf::elementwise \"" + f.name + "\"\n";
    s += "__device__ __forceinline__ " + std::string(cuda_type(f.result)) + " jf_udf_" + k + "_" + f.name + "(";
    for (int a = 0; a < f.arity; ++a)
      s += std::string(a ? ", " : "") + std::string(cuda_type(f.params[static_cast<std::size_t>(a)])) + " " + names[a];
    s += ") {\n" + f.body + "\n}\n#endif\n";
  }
  return s;
}

// An exact C++ literal of a constant of dtype t.
std::string literal(dtype t, const scalar_value& v) {
  char buf[96];
  switch (t) {
  case dtype::bool_: return v.i ? "true" : "false";
  case dtype::int8: case dtype::int16: case dtype::uint8: case dtype::uint16:
    return "static_cast<" + std::string(cuda_type(t)) + ">(" + std::to_string(v.i) + ")";
  case dtype::uint32: return std::to_string(v.i) + "u";
  case dtype::uint64: return std::to_string(static_cast<std::uint64_t>(v.i)) + "ull";
  case dtype::int32:
    if (v.i == -2147483647LL - 1) return "(-2147483647 - 1)";
    return std::to_string(v.i);
  case dtype::int64:
    if (v.i == INT64_MIN) return "(-9223372036854775807LL - 1)";
    return std::to_string(v.i) + "LL";
  case dtype::float32: {
    const float f = static_cast<float>(v.f);
    if (std::isfinite(f)) {
      std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
    } else {
      std::snprintf(buf, sizeof buf, "__int_as_float(static_cast<int>(0x%08" PRIx32 "u))", std::bit_cast<std::uint32_t>(f));
    }
    return buf;
  }
  case dtype::float64:
    if (std::isfinite(v.f)) {
      std::snprintf(buf, sizeof buf, "%a", v.f);
    } else {
      std::snprintf(buf, sizeof buf, "__longlong_as_double(static_cast<long long>(0x%016" PRIx64 "ull))",
                    std::bit_cast<std::uint64_t>(v.f));
    }
    return buf;
  }
  return "?";
}

// FNV-1a, 64 bits: a deterministic name for a graph structure (process and platform independent).
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 14695981039346656037ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string kernel_name(const graph& g, const codegen_options& opt) {
  std::string key = g.to_string();
  if (!g.is_map())  // the listing does not show where a loop nest stores its outputs
    for (const output_desc& o : g.outputs) key += "out@D" + std::to_string(o.domain) + ";";
  for (const node& n : g.nodes)  // the listing rounds NaN payloads; the bits do not
    if (n.code == op::constant) key += std::to_string(std::bit_cast<std::uint64_t>(n.value.f)) + ":" + std::to_string(n.value.i) + ";";
  key += opt.fast_math ? "fast_math" : "ieee";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016" PRIx64, fnv1a(key));
  std::string name = std::string("jf_") + hex;
  int named = 0;
  std::string seen;
  for (const node& n : g.nodes) {  // a few op names, for people reading profiles
    if (n.code == op::input || n.code == op::param || n.code == op::constant) continue;
    const std::string nm(info(n.code).name);
    if (seen.find("_" + nm + "_") != std::string::npos) continue;
    seen += "_" + nm + "_";
    name += "_" + nm;
    if (++named == 3) break;
  }
  return name;
}

}  // namespace codegen_detail

namespace {

using codegen_detail::call_name;
using codegen_detail::function_name;
using codegen_detail::user_functions;
using codegen_detail::literal;

struct writer {
  const graph& g;
  std::ostringstream s;
  std::vector<char> input_used;  // inputs with a node: only these are loaded
  std::vector<int> stride_slot;  // per operand (outputs, then inputs): index of its strides, or -1

  explicit writer(const graph& graph_) : g(graph_), input_used(graph_.inputs.size(), 0) {
    for (const node& n : g.nodes)
      if (n.code == op::input) input_used[static_cast<std::size_t>(n.index)] = 1;
  }

  bool aliased_input(std::size_t k) const {
    for (const output_desc& o : g.outputs)
      if (o.same_as_input == static_cast<std::int32_t>(k)) return true;
    return false;
  }
  std::string T(dtype t) const { return std::string(cuda_type(t)); }
  std::string vec(dtype t) const { return "jf_vec<" + T(t) + ", " + std::to_string(g.vector_width) + ">"; }
  std::string out_name(std::size_t k) const { return "out" + std::to_string(k); }
  std::string in_name(std::size_t k) const { return "in" + std::to_string(k); }

  void header(const std::string& name, const codegen_options& opt) {
    s << "\n// ---- jetfuse kernel " << name << " ----------------------------------------------------\n";
    s << "// " << g.ndim << "-d iteration space, " << (g.index32 ? "int" : "long long") << " indices, vector width "
      << g.vector_width << (opt.fast_math ? ", fast math" : ", IEEE math") << ". IR:\n";
    std::istringstream lines(g.to_string());
    for (std::string line; std::getline(lines, line);) s << "//   " << line << "\n";
    if (g.vector_width > 1) {
      s << "#ifndef JF_VEC_DEFINED\n#define JF_VEC_DEFINED\n"
        << "// W elements moved by one aligned vector access (ld.global.v2.f64, ld.global.v4.f32, ...).\n"
        << "template <class T, int W> struct alignas(sizeof(T) * W) jf_vec { T v[W]; };\n#endif\n";
    }
    s << user_functions(g);
  }

  void args_struct(const std::string& args) {
    s << "\n// The kernel's one argument: every field in its own 8-byte slot (see jf::ir::graph).\n";
    s << "struct " << args << " {\n";
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      s << "  alignas(8) " << T(g.outputs[k].desc.type) << "* " << out_name(k) << ";\n";
    for (std::size_t k = 0; k < g.inputs.size(); ++k)
      s << "  alignas(8) const " << T(g.inputs[k].type) << "* " << in_name(k) << ";\n";
    for (std::size_t k = 0; k < g.params.size(); ++k) s << "  alignas(8) " << T(g.params[k]) << " p" << k << ";\n";
    s << "  alignas(8) long long n;  // elements in the iteration space\n";
    if (g.ndim > 0) {
      s << "  alignas(8) long long shape[" << g.ndim << "];\n";
      for (std::size_t k = 0; k < g.outputs.size(); ++k)
        if (g.outputs[k].desc.lay == layout::strided)
          s << "  alignas(8) long long strides_" << out_name(k) << "[" << g.ndim << "];  // in elements\n";
      for (std::size_t k = 0; k < g.inputs.size(); ++k)
        if (g.inputs[k].lay == layout::strided)
          s << "  alignas(8) long long strides_" << in_name(k) << "[" << g.ndim << "];  // in elements\n";
      if (has_unravel_divisors(g))
        s << "  alignas(8) unsigned long long divisors[" << g.ndim - 1
          << "];  // shape[1..]: magic number (low 32 bits), shift (high 32 bits)\n";
    }
    s << "};\n";
    s << "static_assert(sizeof(" << args << ") == " << abi_slots(g) << " * 8, \"jetfuse kernel ABI: 8-byte slots\");\n";
  }

  bool any_strided_used() const {
    if (g.ndim == 0) return false;
    for (const output_desc& o : g.outputs)
      if (o.desc.lay == layout::strided) return true;
    for (std::size_t k = 0; k < g.inputs.size(); ++k)
      if (input_used[k] && g.inputs[k].lay == layout::strided) return true;
    return false;
  }

  // Pointers, shapes, strides and the loop-invariant values (params, constants, scalar inputs).
  void prologue(const std::string& ind) {
    for (std::size_t k = 0; k < g.outputs.size(); ++k) {
      const bool restrict_ok = g.outputs[k].same_as_input < 0;
      s << ind << T(g.outputs[k].desc.type) << "* " << (restrict_ok ? "__restrict__ " : "") << out_name(k) << " = a."
        << out_name(k) << ";\n";
    }
    for (std::size_t k = 0; k < g.inputs.size(); ++k) {
      if (!input_used[k]) continue;
      s << ind << "const " << T(g.inputs[k].type) << "* " << (aliased_input(k) ? "" : "__restrict__ ") << in_name(k)
        << " = a." << in_name(k) << ";\n";
    }
    if (any_strided_used()) {
      for (int d = 1; d < g.ndim; ++d) {
        s << ind << "const I shape" << d << " = static_cast<I>(a.shape[" << d << "]);\n";
        if (has_unravel_divisors(g))
          s << ind << "const unsigned magic" << d << " = static_cast<unsigned>(a.divisors[" << d - 1 << "]), shift" << d
            << " = static_cast<unsigned>(a.divisors[" << d - 1 << "] >> 32);\n";
      }
      auto strides = [&](const std::string& nm) {
        for (int d = 0; d < g.ndim; ++d)
          s << ind << "const I st_" << nm << "_" << d << " = static_cast<I>(a.strides_" << nm << "[" << d << "]);\n";
      };
      for_each_offset([&](const std::string& nm, const std::string& shared) {
        if (shared.empty()) strides(nm);
      });
    }
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const node& n = g.nodes[id];
      const std::string decl = ind + "const " + T(n.type) + " v" + std::to_string(id) + " = ";
      if (n.code == op::param) s << decl << "a.p" << n.index << ";\n";
      else if (n.code == op::constant) s << decl << literal(n.type, n.value) << ";\n";
      else if (n.code == op::input && g.inputs[static_cast<std::size_t>(n.index)].lay == layout::scalar)
        s << decl << in_name(static_cast<std::size_t>(n.index)) << "[0];  // broadcast scalar\n";
    }
  }

  // Calls f(name, shared) for every strided operand the kernel addresses (outputs, then used
  // inputs): shared names the earlier operand of its stride class whose offset it reuses, or is empty.
  template <class F>
  void for_each_offset(F f) const {
    std::vector<std::string> first_of_class(128);
    auto visit = [&](const operand_desc& d, const std::string& nm) {
      if (d.lay != layout::strided) return;
      if (d.stride_class < 0) return f(nm, std::string());
      std::string& first = first_of_class[static_cast<std::size_t>(d.stride_class)];
      if (first.empty()) {
        first = nm;
        f(nm, std::string());
      } else {
        f(nm, first);
      }
    };
    for (std::size_t k = 0; k < g.outputs.size(); ++k) visit(g.outputs[k].desc, out_name(k));
    for (std::size_t k = 0; k < g.inputs.size(); ++k)
      if (input_used[k]) visit(g.inputs[k], in_name(k));
  }

  // Offsets of the strided operands from the flat index i (last axis fastest), one unravel shared;
  // operands of one stride class share one offset. With int indices each axis' division is a
  // multiply-high and a shift by the launcher's magic numbers (graph.hpp, unravel_divisor).
  void unravel(const std::string& ind) {
    if (!any_strided_used()) return;
    s << ind << "I r = i;\n";
    for (int d = g.ndim - 1; d >= 1; --d) {
      if (has_unravel_divisors(g)) {
        s << ind << "const I q" << d << " = static_cast<I>((__umulhi(static_cast<unsigned>(r), magic" << d
          << ") + static_cast<unsigned>(r)) >> shift" << d << ");\n";
        s << ind << "const I c" << d << " = r - q" << d << " * shape" << d << ";\n" << ind << "r = q" << d << ";\n";
      } else {
        s << ind << "const I c" << d << " = r % shape" << d << ";\n" << ind << "r /= shape" << d << ";\n";
      }
    }
    s << ind << "const I c0 = r;\n";
    for_each_offset([&](const std::string& nm, const std::string& shared) {
      s << ind << "const I o_" << nm << " = ";
      if (!shared.empty()) {
        s << "o_" << shared << ";  // the same strides\n";
        return;
      }
      for (int d = 0; d < g.ndim; ++d) s << (d ? " + " : "") << "c" << d << " * st_" << nm << "_" << d;
      s << ";\n";
    });
  }

  // The nodes computed per element. lane: "" for the scalar loop, else the vector lane variable.
  void body(const std::string& ind, bool vector) {
    for (std::size_t id = 0; id < g.nodes.size(); ++id) {
      const node& n = g.nodes[id];
      if (n.code == op::param || n.code == op::constant) continue;
      const std::string decl = ind + "const " + T(n.type) + " v" + std::to_string(id) + " = ";
      if (n.code == op::input) {
        const std::size_t k = static_cast<std::size_t>(n.index);
        const layout l = g.inputs[k].lay;
        if (l == layout::scalar) continue;
        if (vector) s << decl << "x_" << in_name(k) << ".v[l];\n";
        else if (l == layout::contiguous || g.ndim == 0) s << decl << in_name(k) << (l == layout::contiguous ? "[i]" : "[0]") << ";\n";
        else s << decl << in_name(k) << "[o_" << in_name(k) << "];\n";
        continue;
      }
      s << decl;
      if (n.code == op::cast) s << "jf::ops::jf_cast<" << T(n.type) << ">(";
      else s << call_name(n) << "(";
      for (int a = 0; a < n.nargs; ++a) s << (a ? ", v" : "v") << n.args[static_cast<std::size_t>(a)];
      s << ");\n";
    }
    for (std::size_t k = 0; k < g.outputs.size(); ++k) {
      const output_desc& o = g.outputs[k];
      if (vector) s << ind << "y_" << out_name(k) << ".v[l] = v" << o.value << ";\n";
      else if (o.desc.lay == layout::contiguous) s << ind << out_name(k) << "[i] = v" << o.value << ";\n";
      else if (g.ndim == 0) s << ind << out_name(k) << "[0] = v" << o.value << ";\n";
      else s << ind << out_name(k) << "[o_" << out_name(k) << "] = v" << o.value << ";\n";
    }
  }

  void scalar_loop(const std::string& ind, const std::string& first) {
    // With int indices i + step could overflow past n: stop at n instead of wrapping.
    const std::string next = g.index32 ? "i = (n - i > step) ? i + step : n" : "i += step";
    s << ind << "for (I i = " << first << "; i < n; " << next << ") {\n";
    unravel(ind + "  ");
    body(ind + "  ", false);
    s << ind << "}\n";
  }

  void vector_loops(const std::string& ind) {
    const int w = g.vector_width;
    const std::string next = g.index32 ? "j = (nv - j > step) ? j + step : nv" : "j += step";
    s << ind << "// " << w << " consecutive elements per thread and iteration, as aligned vectors.\n";
    s << ind << "const I nv = n / " << w << ";\n";
    s << ind << "for (I j = start; j < nv; " << next << ") {\n";
    const std::string in2 = ind + "  ";
    for (std::size_t k = 0; k < g.inputs.size(); ++k)
      if (input_used[k] && g.inputs[k].lay == layout::contiguous)
        s << in2 << "const " << vec(g.inputs[k].type) << " x_" << in_name(k) << " = reinterpret_cast<const "
          << vec(g.inputs[k].type) << "*>(" << in_name(k) << ")[j];\n";
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      s << in2 << vec(g.outputs[k].desc.type) << " y_" << out_name(k) << ";\n";
    s << in2 << "#pragma unroll\n";
    s << in2 << "for (int l = 0; l < " << w << "; ++l) {\n";
    body(in2 + "  ", true);
    s << in2 << "}\n";
    for (std::size_t k = 0; k < g.outputs.size(); ++k)
      s << in2 << "reinterpret_cast<" << vec(g.outputs[k].desc.type) << "*>(" << out_name(k) << ")[j] = y_"
        << out_name(k) << ";\n";
    s << ind << "}\n";
    s << ind << "// The last n % " << w << " elements.\n";
    scalar_loop(ind, "nv * " + std::to_string(w) + " + start");
  }
};

}  // namespace

kernel_source generate_cuda(const graph& g, const codegen_options& opt) {
  g.validate();
  if (!g.is_map()) return codegen_detail::generate_nest(g, opt);
  kernel_source k;
  k.name = codegen_detail::kernel_name(g, opt);
  k.launch.shape = kernel_shape::map;
  k.launch.vector_width = g.vector_width;
  k.launch.index32 = g.index32;
  const std::string args = k.name + "_args";
  writer w(g);
  w.header(k.name, opt);
  w.args_struct(args);
  auto& s = w.s;
  s << "\nextern \"C\" __global__ void " << k.name << "(const " << args << " a) {\n";
  s << "  using I = " << (g.index32 ? "int" : "long long") << ";\n";
  s << "  const I n = static_cast<I>(a.n);\n";
  s << "  const I start = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);\n";
  s << "  const I step = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);\n";
  s << "  if (start >= n) return;  // also keeps threads without work from loading broadcast scalars\n";
  w.prologue("  ");
  if (g.vector_width > 1) w.vector_loops("  ");
  else w.scalar_loop("  ", "start");
  s << "}\n";
  k.source = std::string(scalar_ops_source()) + s.str();
  return k;
}

}  // namespace jf::ir
