"""jetfuse's element-wise operations as the fuzzer sees them, read from the headers themselves.

The op table (include/jetfuse/ops.hpp: opcode, numpy name, arity, dtype rule), the numpy-named
functions (expr/functions.hpp: every C++ name and the opcode it builds) and the operators
(expr/operators.hpp) are parsed, so a new operation is fuzzed as soon as it is in the table.
The dtype model below mirrors dtype.hpp / ops.hpp / type_of.hpp (NEP 50 with weak C++ scalars):
the generator uses it to predict which trees jetfuse compiles and what dtype they have; the
comparison checks the dtype jetfuse actually produced against numpy's, not against this model.
"""
import os
import re
from dataclasses import dataclass

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
CPP_TYPE = {"bool": "bool", "int8": "std::int8_t", "int16": "std::int16_t", "int32": "std::int32_t",
            "int64": "std::int64_t", "uint8": "std::uint8_t", "uint16": "std::uint16_t", "uint32": "std::uint32_t",
            "uint64": "std::uint64_t", "float32": "float", "float64": "double"}
ITEMSIZE = {"bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4,
            "uint64": 8, "float32": 4, "float64": 8}
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")


def is_int(d):
    return d in SIGNED or d in UNSIGNED


def is_unsigned(d):
    return d in UNSIGNED


def is_float(d):
    return d in ("float32", "float64")


def kind_rank(k):
    return {"bool": 1, "int": 2, "float": 3}[k]


def kind_of(d):
    return "bool" if d == "bool" else "int" if is_int(d) else "float"


@dataclass(frozen=True)
class OpType:
    """An operand's type: a strong dtype, or a weak C++ scalar of a kind (dtype = its default)."""
    dtype: str
    weak: str = ""  # "", "bool", "int", "float"


WEAK_DEFAULT = {"bool": "bool", "int": "int64", "float": "float64"}


def weak(kind):
    return OpType(WEAK_DEFAULT[kind], kind)


def promote_types(a, b):
    """numpy's result_type (dtype.hpp promote_types)."""
    if a == b:
        return a
    if a == "bool":
        return b
    if b == "bool":
        return a
    if is_float(a) and is_float(b):
        return "float64"
    if is_float(a) or is_float(b):
        f, i = (a, b) if is_float(a) else (b, a)
        return "float32" if f == "float32" and ITEMSIZE[i] <= 2 else "float64"
    if (a in SIGNED) == (b in SIGNED):
        return a if ITEMSIZE[a] >= ITEMSIZE[b] else b
    s, u = (a, b) if a in SIGNED else (b, a)
    if ITEMSIZE[s] > ITEMSIZE[u]:
        return s
    return "float64" if ITEMSIZE[u] == 8 else "int%d" % (16 * ITEMSIZE[u])


def promote(a, b):
    if not a.weak and not b.weak:
        return OpType(promote_types(a.dtype, b.dtype))
    if a.weak and b.weak:
        return a if kind_rank(a.weak) >= kind_rank(b.weak) else b
    s, w = (b, a) if a.weak else (a, b)
    if kind_rank(w.weak) > kind_rank(kind_of(s.dtype)):
        return OpType(w.dtype)
    return s


def accepts(rule, compute):
    if rule == "no_bool":
        return compute != "bool"
    if rule == "bitwise":
        return not is_float(compute)
    if rule == "shift":
        return is_int(compute)
    return True


def compute_dtype(rule, promoted):
    if rule == "float_fn":  # bool, int8, uint8: numpy's float16 is jetfuse's float32
        if promoted == "bool" or (is_int(promoted) and ITEMSIZE[promoted] <= 2):
            return "float32"
        return "float64" if is_int(promoted) else promoted
    if rule in ("bool_int8", "shift") and promoted == "bool":
        return "int8"
    if rule == "true_divide":
        return promoted if is_float(promoted) else "float64"
    if rule == "logical":
        return "bool"
    return promoted


def result_dtype(rule, compute):
    return "bool" if rule in ("compare", "logical", "classify") else compute


@dataclass(frozen=True)
class Op:
    code: str      # opcode (ops.hpp)
    numpy: str     # numpy's name of the operation
    arity: int
    rule: str


@dataclass(frozen=True)
class Spelling:
    """One way to write an operation in C++ and in numpy."""
    op: Op
    cpp: str       # "jf::sqrt" (a function) or "+" (an operator)
    np: str        # "np.sqrt" or "+"

    @property
    def cpp_operator(self):
        return not self.cpp.startswith("jf::")

    @property
    def np_operator(self):
        return not self.np.startswith("np.")


def _read(root, rel):
    with open(os.path.join(root, rel)) as fh:
        return fh.read()


class OpTable:
    def __init__(self, root):
        ops_src = _read(root, "include/jetfuse/ops.hpp")
        self.ops = {}
        for code, name, arity, rule in re.findall(r'X\((\w+), "(\w+)", (\d), (\w+)\)', ops_src):
            self.ops[code] = Op(code, name, int(arity), rule)
        if len(self.ops) < 40:
            raise SystemExit("optable: could not parse the op table in ops.hpp")
        fn_src = _read(root, "include/jetfuse/expr/functions.hpp")
        self.spellings = []
        for kind, name, code in re.findall(r"^JF_(UNARY|BINARY)_FUNCTION\((\w+), (\w+)\)", fn_src, re.M):
            self.spellings.append(Spelling(self.ops[code], "jf::" + name, "np." + name))
        if "auto where(" in fn_src:
            self.spellings.append(Spelling(self.ops["where"], "jf::where", "np.where"))
        opr_src = _read(root, "include/jetfuse/expr/operators.hpp")
        for sym, code in re.findall(r"^JF_BINARY_OPERATOR\(([^,]+), (\w+)\)", opr_src, re.M):
            np_sym = {"&&": "np.logical_and", "||": "np.logical_or"}.get(sym, sym)
            self.spellings.append(Spelling(self.ops[code], sym, np_sym))
        for sym, code in re.findall(r"auto operator(\W)\(A&& a\) \{ return make_call<fn<op::(\w+)>>", opr_src):
            np_sym = {"!": "np.logical_not"}.get(sym, sym)
            self.spellings.append(Spelling(self.ops[code], sym, np_sym))
        # Compound assignments (x += e ...) declared anywhere in the public headers.
        headers = ""
        for d, _, files in os.walk(os.path.join(root, "include", "jetfuse")):
            headers += "".join(_read(d, f) for f in sorted(files) if f.endswith(".hpp"))
        # Spelled out (operator+=(...)) or through eval.hpp's JF_COMPOUND_ASSIGNMENT(+, add) rows.
        self.inplace = [sym for sym in INPLACE
                        if re.search(r"operator" + re.escape(sym) + r"=\s*\(", headers)
                        or re.search(r"JF_COMPOUND_ASSIGNMENT\(" + re.escape(sym) + r",\s*" + INPLACE[sym] + r"\)",
                                     headers)]
        # Reductions (expr/reductions.hpp): (C++ and numpy name, reducer, form) where form is
        # "plain" (axis None/int/tuple, keepdims), "moment" (plus jf::ddof) or "arg" (no tuple).
        self.reducers = []
        red_path = os.path.join(root, "include/jetfuse/expr/reductions.hpp")
        if os.path.exists(red_path):
            red_src = _read(root, "include/jetfuse/expr/reductions.hpp")
            for macro, form in (("REDUCER", "plain"), ("MOMENT", "moment"), ("ARG", "arg")):
                for name, kind in re.findall(r"^JF_%s_FUNCTION\((\w+), (\w+)\)" % macro, red_src, re.M):
                    self.reducers.append(Reducer(name, kind, form))
            if re.search(r"^JF_ALL_REDUCTION\(", red_src, re.M):
                self.reducers.append(Reducer("all", "all", "plain"))
        self.has_clip = "auto clip(" in fn_src
        self.has_astype = "auto astype(" in fn_src
        covered = {s.op.code for s in self.spellings}
        missing = set(self.ops) - covered
        if missing:
            raise SystemExit("optable: operations without a C++ spelling: " + ", ".join(sorted(missing)))

    def by_arity(self, n):
        return [s for s in self.spellings if s.op.arity == n]


@dataclass(frozen=True)
class Reducer:
    """One reduction function: jf::NAME(x, ...) and np.NAME(x, ...)."""
    name: str      # sum, amin, all, ... (the same in C++ and numpy)
    kind: str      # the reducer (reducers.hpp): amin is min
    form: str      # plain, moment (var/std: ddof), arg (argmin/argmax: no tuple of axes)


def reduced_dtype(kind, d):
    """numpy's result dtype of a reduction (reducers.hpp reduced_dtype)."""
    if kind in ("sum", "prod", "nansum", "nanprod"):
        return d if is_float(d) else "uint64" if is_unsigned(d) else "int64"
    if kind in ("mean", "var", "std", "nanmean"):
        return d if is_float(d) else "float64"
    if kind in ("any", "all"):
        return "bool"
    if kind in ("argmin", "argmax", "count_nonzero"):
        return "int64"
    return d


# x OP= e: the operation each compound assignment applies (numpy's in-place ufunc).
INPLACE = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide", "%": "remainder",
           "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<<": "left_shift", ">>": "right_shift"}


def op_types(op, args):
    """(compute, result) dtypes of op applied to operand types, or None when jetfuse rejects it."""
    first = 1 if op.code == "where" else 0
    p = args[first]
    for a in args[first + 1:]:
        p = promote(p, a)
    compute = compute_dtype(op.rule, p.dtype)
    if op.rule == "float_fn" and len(args) == 2 and not args[0].weak and not args[1].weak:
        # numpy's first loop every operand casts to safely: arctan2(uint16, int8) is float32
        compute = promote_types(compute_dtype("float_fn", args[0].dtype), compute_dtype("float_fn", args[1].dtype))
    if not accepts(op.rule, compute):
        return None
    return compute, result_dtype(op.rule, compute)
