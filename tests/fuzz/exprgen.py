"""Random expression trees over jetfuse's operations, written as C++ and as numpy.

A case is one tree plus how its value is stored: a new array (`jf::eval`), a new array of another
dtype (`jf::array<U> r = e`), an assignment into one of the inputs or a view of one (`x = e(x)`),
or an in-place operation (`x += e`). Leaves are array variables a0, a1, ... whose shapes, views
and data are chosen at run time (variants.py); scalars are C++ literals (NEP 50 weak scalars).
"""
import math
from dataclasses import dataclass, field

import numpy as np

from optable import CPP_TYPE, DTYPES, INPLACE, Op, OpType, Spelling, is_float, is_int, op_types, reduced_dtype, weak

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

# Unary + is no operation in jetfuse (it only makes an array an expression); numpy's is `positive`.
POSITIVE = Spelling(Op("positive", "positive", 1, "same"), "+", "+")


class Node:
    t: OpType


@dataclass
class Leaf(Node):
    idx: int
    dtype: str

    @property
    def t(self):
        return OpType(self.dtype)

    def cpp(self):
        return "a%d" % self.idx

    def np(self):
        return "a%d" % self.idx


@dataclass
class Scalar(Node):
    kind: str        # bool, int, float
    value: object    # the Python value numpy sees
    cpp_text: str

    @property
    def t(self):
        return weak(self.kind)

    def cpp(self):
        return self.cpp_text

    def np(self):
        if self.kind == "float" and not math.isfinite(self.value):
            return "float('%s')" % repr(self.value)
        return repr(self.value)


@dataclass
class Call(Node):
    sp: Spelling
    args: list
    t: OpType = None

    def cpp(self):
        a = [x.cpp() for x in self.args]
        if self.sp.cpp_operator:
            return "(%s%s)" % (self.sp.cpp, a[0]) if len(a) == 1 else "(%s %s %s)" % (a[0], self.sp.cpp, a[1])
        return "%s(%s)" % (self.sp.cpp, ", ".join(a))

    def np(self):
        a = [x.np() for x in self.args]
        if self.sp.np_operator:
            return "(%s%s)" % (self.sp.np, a[0]) if len(a) == 1 else "(%s %s %s)" % (a[0], self.sp.np, a[1])
        return "%s(%s)" % (self.sp.np, ", ".join(a))


@dataclass
class Cast(Node):
    dtype: str
    arg: Node

    @property
    def t(self):
        return OpType(self.dtype)

    def cpp(self):
        return "jf::astype<%s>(%s)" % (CPP_TYPE[self.dtype], self.arg.cpp())

    def np(self):
        return "np.asarray(%s).astype(np.%s)" % (self.arg.np(), self.dtype)


@dataclass
class Clip(Node):
    args: list  # x, lo, hi
    t: OpType = None

    def cpp(self):
        return "jf::clip(%s)" % ", ".join(a.cpp() for a in self.args)

    def np(self):
        return "np.clip(%s)" % ", ".join(a.np() for a in self.args)


@dataclass
class Reduce(Node):
    """jf::sum(x), jf::mean(x, 1, jf::keepdims), jf::var(x, {0, -1}, jf::ddof(1)): numpy's
    np.sum(x, axis=..., keepdims=..., ddof=...). Axes are literals; the operand's shape (and so
    whether the axes are valid) is chosen per variant (variants.py plans shapes around them)."""
    red: object      # optable.Reducer
    arg: Node
    axis: object     # None, an int, or a tuple of ints
    keepdims: bool
    ddof: int = 0
    spell_ddof: bool = False  # write jf::ddof(0) explicitly

    @property
    def t(self):
        return OpType(reduced_dtype(self.red.kind, self.arg.t.dtype))

    @property
    def axes(self):
        """The axes as a tuple (None: all)."""
        return None if self.axis is None else self.axis if isinstance(self.axis, tuple) else (self.axis,)

    def cpp(self):
        parts = [self.arg.cpp()]
        if isinstance(self.axis, tuple):
            parts.append("{%s}" % ", ".join(map(str, self.axis)))
        elif self.axis is not None:
            parts.append(str(self.axis))
        if self.keepdims:
            parts.append("jf::keepdims")
        if self.red.form == "moment" and (self.ddof or self.spell_ddof):
            parts.append("jf::ddof(%d)" % self.ddof)
        return "jf::%s(%s)" % (self.red.name, ", ".join(parts))

    def np(self):
        parts = [self.arg.np()]
        if self.axis is not None:
            parts.append("axis=%r" % (self.axis,))
        if self.keepdims:
            parts.append("keepdims=True")
        if self.red.form == "moment" and self.ddof:
            parts.append("ddof=%d" % self.ddof)
        return "np.%s(%s)" % (self.red.name, ", ".join(parts))


def children(node):
    if isinstance(node, (Cast, Reduce)):
        return [node.arg]
    return getattr(node, "args", None) or []


def walk(node):
    if node is None:
        return
    yield node
    for a in children(node):
        yield from walk(a)


def always_0d(node):
    """Whether the node's value is 0-d whatever the leaves' shapes (a full reduction)."""
    if isinstance(node, Reduce):
        return node.axis is None and not node.keepdims
    if isinstance(node, (Leaf, Scalar)):
        return isinstance(node, Scalar)
    return all(always_0d(a) for a in children(node))


def has_reduction(node):
    return any(isinstance(n, Reduce) for n in walk(node))


@dataclass
class Case:
    seed: int
    index: int
    root: Node
    leaves: list            # dtype of a0, a1, ...
    dest: str               # new, pair, typed, assign, inplace
    root2: Node = None      # pair: the second expression of jf::eval(e1, e2)
    dest_leaf: int = -1     # assign / inplace: the leaf written
    dest_dtype: str = ""    # typed: U
    inplace_op: str = ""    # "+", "-", ... (optable.INPLACE)
    skip_reason: str = ""
    notes: list = field(default_factory=list)

    @property
    def name(self):
        return "case_%d_%d" % (self.seed, self.index)

    def expr_cpp(self):
        return self.root.cpp()

    def expr_np(self):
        return self.root.np()

    def statement_cpp(self):
        e = self.expr_cpp()
        if self.dest == "new":
            return "c.result(c.eval(%s));" % e
        if self.dest == "pair":  # one kernel, two outputs
            return "c.result(c.eval(%s, %s));" % (e, self.root2.cpp())
        if self.dest == "typed":
            return "jf::array<%s> r = %s;\n  c.result(r);" % (CPP_TYPE[self.dest_dtype], e)
        d = "a%d" % self.dest_leaf
        if self.dest == "assign":
            return "%s = %s;\n  c.result(%s);" % (d, e, d)
        return "%s %s= %s;\n  c.result(%s);" % (d, self.inplace_op, e, d)

    def statement_np(self):
        e = self.expr_np()
        if self.dest == "new":
            return "r = %s" % e
        if self.dest == "pair":
            return "r, r2 = %s, %s  # each broadcast to the shape of all leaves" % (e, self.root2.np())
        if self.dest == "typed":
            return "r = np.asarray(%s).astype(np.%s)" % (e, self.dest_dtype)
        d = "a%d" % self.dest_leaf
        if self.dest == "assign":
            return "%s[...] = %s" % (d, e)
        return "%s %s= %s" % (d, self.inplace_op, e)

    def modes(self):
        """Which evaluations apply: jf::eval(jf::unfused, e) only exists for new arrays."""
        return "fu" if self.dest in ("new", "pair") else "f"


# ---- scalars -----------------------------------------------------------------------------------
def int_literal(rng, v):
    if v == INT64_MIN:
        return "(-9223372036854775807LL - 1)"
    if v > INT64_MAX:
        return "%dull" % v  # a std::uint64_t: numpy sees the same Python int
    if INT32_MIN < v <= INT32_MAX:
        # Any C++ integer type is a weak integer: vary the spelling.
        form = rng.below(6)
        if form == 0 and v >= 0:
            return "%du" % v
        if form == 1:
            return "std::int32_t{%d}" % v
        if form == 2:
            return "%dL" % v
        return str(v)
    return "%dLL" % v


def float_literal(rng, v):
    if math.isnan(v):
        return "std::numeric_limits<double>::quiet_NaN()"
    if math.isinf(v):
        return ("-" if v < 0 else "") + "std::numeric_limits<double>::infinity()"
    r = repr(v)
    # A float literal is a weak float too (captured as double); only where it is exact.
    if rng.below(5) == 0 and float(__import__("numpy").float32(v)) == v and "e" not in r:
        return r + "f"
    return r


def gen_scalar(rng, kind, ctx_dtype):
    if kind == "bool":
        v = rng.chance(0.5)
        return Scalar("bool", v, "true" if v else "false")
    if kind == "int":
        pool = [0, 1, 2, 3, -1, -2, 5, 7, -7, 31, 32, 64, 100]
        narrow = ctx_dtype in ("int8", "int16", "uint8", "uint16", "uint32")
        if ctx_dtype in ("uint8", "uint16", "uint32", "uint64") and rng.chance(0.9):
            pool = [v for v in pool if v >= 0]  # a negative one raises (numpy's OverflowError)
        if rng.chance(0.2):
            # Large values: the limits of a narrow context's dtype (out of range is a separate
            # error case below), near the limits of int64 otherwise.
            pool = [INT32_MAX, INT32_MIN, 2**31, 2**40, INT64_MAX, INT64_MIN, 2**53 + 1, 2**63, 2**64 - 1]
            if narrow:
                info = np.iinfo(ctx_dtype)
                pool = [int(info.min), int(info.max), int(info.max) // 2 + 1]
        v = rng.choice(pool)
        return Scalar("int", v, int_literal(rng, v))
    pool = [0.0, -0.0, 0.5, 1.0, -1.0, 2.0, 1.5, -2.5, 3.0, 0.1, 1e10, 1e-10, 0.25]
    if rng.chance(0.1):
        pool = [math.inf, -math.inf, math.nan, 1e300, 3.4028234663852886e38, 5e-324, 1e-45]
    v = rng.choice(pool)
    return Scalar("float", v, float_literal(rng, v))


# ---- trees -------------------------------------------------------------------------------------
class TreeGen:
    def __init__(self, table, rng, max_leaves=4):
        self.t = table
        self.rng = rng
        self.leaves = []
        self.max_leaves = max_leaves
        unary = table.by_arity(1) + [POSITIVE]
        binary = table.by_arity(2)
        self.unary = unary
        self.binary = binary
        self.where = table.by_arity(3)

    def leaf(self, dtype=None):
        r = self.rng
        if self.leaves and (len(self.leaves) >= self.max_leaves or r.chance(0.3)) and dtype is None:
            i = r.below(len(self.leaves))  # the same array used twice: a + a, x * sin(x)
            return Leaf(i, self.leaves[i])
        if dtype is None:
            dtype = r.choice(DTYPES)
        self.leaves.append(dtype)
        return Leaf(len(self.leaves) - 1, dtype)

    def scalar_for(self, other):
        r = self.rng
        kind = r.weighted([("int", 4), ("float", 4), ("bool", 1)])
        narrow = ("int8", "int16", "int32", "uint8", "uint16", "uint32")
        if kind == "int" and other.t.dtype in narrow and not other.t.weak and r.chance(0.1):
            # out of the dtype's range: numpy raises OverflowError for arithmetic, jetfuse dtype_error
            info = np.iinfo(other.t.dtype)
            v = r.choice([int(info.max) + 1, int(info.min) - 1, 2**40])
            return Scalar("int", v, int_literal(r, v))
        return gen_scalar(r, kind, other.t.dtype)

    def node(self, depth):
        r = self.rng
        if depth <= 0 or r.chance(0.2):
            return self.leaf()
        for _ in range(10):
            what = r.weighted([("unary", 30), ("binary", 55), ("where", 5), ("cast", 6), ("clip", 3),
                               ("reduce", 14 if self.t.reducers else 0)])
            n = getattr(self, "gen_" + what)(depth)
            if n is not None:
                return n
        return self.leaf()

    def typed_call(self, sp, args):
        if sp is POSITIVE:
            return Call(sp, args, args[0].t)
        ts = op_types(sp.op, [a.t for a in args])
        if ts is None:
            return None  # jetfuse rejects it at compile time (bool arithmetic, bitwise floats...)
        return Call(sp, args, OpType(ts[1]))

    def gen_unary(self, depth):
        return self.typed_call(self.rng.choice(self.unary), [self.node(depth - 1)])

    def gen_binary(self, depth):
        r = self.rng
        sp = r.choice(self.binary)
        a = self.node(depth - 1)
        b = self.scalar_for(a) if r.chance(0.35) else self.node(depth - 1)
        args = [b, a] if r.chance(0.5) else [a, b]
        return self.typed_call(sp, args)

    def gen_where(self, depth):
        r = self.rng
        sp = self.where[0]
        cond = Scalar("bool", r.chance(0.5), "") if r.chance(0.1) else self.node(depth - 1)
        if isinstance(cond, Scalar):
            cond.cpp_text = "true" if cond.value else "false"
        x = self.node(depth - 1)
        y = self.scalar_for(x) if r.chance(0.4) else self.node(depth - 1)
        args = [cond, y, x] if r.chance(0.5) else [cond, x, y]
        return self.typed_call(sp, args)

    def gen_cast(self, depth):
        a = self.node(depth - 1)
        return Cast(self.rng.choice(DTYPES), a)

    def gen_clip(self, depth):
        if not self.t.has_clip:
            return None
        r = self.rng
        x = self.node(depth - 1)
        lo = self.scalar_for(x) if r.chance(0.6) else self.node(depth - 1)
        hi = self.scalar_for(x) if r.chance(0.6) else self.node(depth - 1)
        maxi = op_types(self.t.ops["maximum"], [x.t, lo.t])
        if maxi is None:
            return None
        mini = op_types(self.t.ops["minimum"], [OpType(maxi[1]), hi.t])
        if mini is None:
            return None
        return Clip([x, lo, hi], OpType(mini[1]))


    def gen_reduce(self, depth, arg=None):
        """A reduction of a subtree: random reducer, axis None / int (negative too) / tuple,
        keepdims, ddof. Its result broadcasts against its siblings (variants.py plans shapes)."""
        r = self.rng
        red = r.choice(self.t.reducers)
        x = self.node(depth - 1) if arg is None else arg
        forms = [("none", 3), ("int", 4)] + ([("tuple", 3)] if red.form != "arg" else [])
        form = "none" if always_0d(x) else r.weighted(forms)
        if form == "none":
            axis = None
        elif form == "int":
            axis = r.weighted([(0, 4), (1, 3), (2, 1), (-1, 4), (-2, 2), (-3, 1)])
        else:
            n = r.weighted([(1, 1), (2, 5), (3, 1)])
            # distinct literals; whether they name distinct axes depends on the rank (0 and -2 at
            # rank 2): the variants choose ranks where they do, and now and then one where not
            for _ in range(20):
                axis = tuple(r.shuffle([0, 1, 2, -1, -2, -3])[:n])
                if any(len({a % k for a in axis}) == n and all(-k <= a < k for a in axis) for k in range(n, 5)):
                    break  # distinct axes at some rank <= 4
        keep = r.chance(0.4)
        ddof = 0
        spell = False
        if red.form == "moment":
            ddof = r.weighted([(0, 5), (1, 4), (2, 1), (-1, 1), (5, 1)])
            spell = ddof == 0 and r.chance(0.3)
        return Reduce(red, x, axis, keep, ddof, spell)


def gen_case(table, seed, index, rng):
    g = TreeGen(table, rng)
    depth = rng.weighted([(1, 2), (2, 4), (3, 4), (4, 1)])
    root = None
    for _ in range(20):
        g.leaves = []
        root = g.node(depth)
        if not isinstance(root, Leaf):
            break
    if isinstance(root, Leaf):  # give up on an operation: negate it
        root = Call(table.by_arity(1)[0], [root], OpType(root.dtype))
    if table.reducers and rng.chance(0.15):  # a reduction at the root
        root = g.gen_reduce(depth, root)
    dest = rng.weighted([("new", 44), ("pair", 8), ("typed", 11), ("assign", 18), ("inplace", 19)])
    root2 = g.node(rng.weighted([(1, 2), (2, 2)])) if dest == "pair" else None
    # Leaves of subtrees that were generated and dropped (jetfuse rejected them) are not leaves.
    leaves = [n for n in list(walk(root)) + list(walk(root2)) if isinstance(n, Leaf)]
    used = sorted({n.idx for n in leaves})
    for n in leaves:
        n.idx = used.index(n.idx)
    case = Case(seed, index, root, [g.leaves[i] for i in used], dest, root2=root2)
    if dest == "typed":
        case.dest_dtype = rng.choice(DTYPES)
    elif dest in ("assign", "inplace"):
        if rng.chance(0.6):  # x = f(x, ...): the destination is read by the expression
            case.dest_leaf = rng.below(len(case.leaves))
        else:
            case.leaves.append(rng.choice(DTYPES))
            case.dest_leaf = len(case.leaves) - 1
        if dest == "inplace":
            case.inplace_op = rng.choice(table.inplace)
            code = INPLACE[case.inplace_op]
            ts = op_types(table.ops[code], [OpType(case.leaves[case.dest_leaf]), root.t])
            if ts is None:
                case.skip_reason = "jetfuse rejects at compile time"
            elif not __import__("numpy").can_cast(ts[1], case.leaves[case.dest_leaf], "same_kind"):
                # numpy's same_kind rule, a static_assert in jetfuse (numpy's own check is not
                # reached when every variant raises first, e.g. for a weak integer out of range)
                case.skip_reason = "jetfuse rejects at compile time"
    return case

