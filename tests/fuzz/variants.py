"""Run-time inputs of a case: broadcasting shapes (0 and 1 extents included), views with steps
(negative too), integer indices and transposes, inputs sharing a buffer (aliasing), and data rich
in edge values. One case runs over several variants; none of this changes the C++ expression type.

A variant is a list of bases (contiguous buffers: dtype, shape, data) and one view per leaf:
base index, slice arguments (numpy basic indexing: ints and start:stop:step) and a transpose.
"""
import math
from dataclasses import dataclass, field

import numpy as np

import exprgen as eg
from optable import is_float, is_int

NONE = None  # an open slice bound (jf::range::none)


@dataclass
class View:
    base: int
    slices: list = field(default_factory=list)  # [("i", k) | ("r", start, stop, step)]
    axes: list = None                           # transpose axes, None for none

    def apply(self, arr):
        if self.slices:
            idx = tuple(s[1] if s[0] == "i" else slice(s[1], s[2], s[3]) for s in self.slices)
            arr = arr[idx + (Ellipsis,)]  # a 0-d view, not a scalar, when every argument is an int
        if self.axes is not None:
            arr = arr.transpose(self.axes)
        return arr

    def describe(self):
        parts = []
        if self.slices:
            def one(s):
                if s[0] == "i":
                    return str(s[1])
                f = lambda v: "" if v is None else str(v)
                return "%s:%s%s" % (f(s[1]), f(s[2]), "" if s[3] == 1 else ":" + str(s[3]))
            parts.append("[%s]" % ", ".join(one(s) for s in self.slices))
        if self.axes is not None:
            parts.append(".transpose(%s)" % (tuple(self.axes),))
        return "b%d%s" % (self.base, "".join(parts))


@dataclass
class Variant:
    bases: list  # numpy arrays (contiguous)
    views: list  # one View per leaf
    kind: str    # "tame" or "edge": what the data are like

    def leaf_arrays(self, bases=None):
        bases = self.bases if bases is None else bases
        return [v.apply(bases[v.base]) for v in self.views]


EXTENTS = [1, 1, 2, 3, 3, 4, 5, 7]


def out_shape(rng):
    if rng.chance(0.1):  # larger: several blocks of the CPU evaluator, vector loops on the GPU,
        # rows longer than a GPU block (a strided view's flat loop crosses rows inside a block)
        return rng.choice([(2051,), (37, 61), (3, 1, 700), (4097,), (3, 1100), (2, 2, 1030)])
    nd = rng.weighted([(0, 1), (1, 4), (2, 4), (3, 2)])
    s = [rng.choice(EXTENTS) for _ in range(nd)]
    if nd and rng.chance(0.08):
        s[rng.below(nd)] = 0
    return tuple(s)


def leaf_shape(rng, out):
    """A shape that broadcasts to `out`: trailing axes kept or set to 1, leading ones dropped."""
    nd = len(out)
    keep = nd if rng.chance(0.6) else rng.range(0, nd)
    s = list(out[nd - keep:])
    for i in range(len(s)):
        if rng.chance(0.2):
            s[i] = 1
    return tuple(s)


def slice_for(rng, extent, base_extent=None):
    """(base extent, ("r", start, stop, step)) selecting `extent` elements."""
    step = rng.weighted([(1, 5), (2, 2), (-1, 3), (-2, 2), (3, 1), (-3, 1)])
    need = (extent - 1) * abs(step) + 1 if extent else 0
    if base_extent is None:
        base_extent = need + rng.below(3)
    if base_extent < need:
        return None
    for _ in range(20):
        first = rng.range(0, base_extent - need) if base_extent >= need else 0
        if step < 0:
            first = base_extent - 1 - first
        start, stop = first, first + step * extent
        # Spell bounds as numpy users do: open bounds, negative (from the end) bounds.
        if stop < 0:
            stop = NONE
        elif rng.chance(0.3) and stop <= base_extent:
            stop = stop - base_extent if stop < base_extent else (NONE if step > 0 else stop)
        if start == (0 if step > 0 else base_extent - 1) and rng.chance(0.5):
            start = NONE
        elif rng.chance(0.3) and start is not NONE:
            start -= base_extent
        if len(range(*slice(start, stop, step).indices(base_extent))) == extent:
            return base_extent, ("r", start, stop, step)
    return None


def make_view(rng, shape, base_index):
    """A view of a new base with the given final shape; returns (base shape, View)."""
    nd = len(shape)
    if rng.chance(0.35):
        return tuple(shape), View(base_index)
    axes = None
    vshape = list(shape)
    if nd >= 2 and rng.chance(0.35):
        axes = rng.shuffle(list(range(nd)))
        # transpose(axes) of the sliced view gives shape: view axis axes[i] has extent shape[i]
        vshape = [0] * nd
        for i, a in enumerate(axes):
            vshape[a] = shape[i]
    base_shape, slices = [], []
    for e in vshape:
        r = slice_for(rng, e) if rng.chance(0.7) else None
        if r is None:
            base_shape.append(e)
            slices.append(("r", NONE, NONE, 1))
        else:
            base_shape.append(r[0])
            slices.append(r[1])
    if len(base_shape) < 4 and rng.chance(0.2):  # an integer index removes an extra base axis
        pos = rng.below(len(base_shape) + 1)
        n = rng.range(1, 3)
        k = rng.below(n)
        base_shape.insert(pos, n)
        slices.insert(pos, ("i", k - n if rng.chance(0.5) else k))
    if all(s == ("r", NONE, NONE, 1) for s in slices):
        slices = []
    return tuple(base_shape), View(base_index, slices, axes)


def reslice(rng, base_shape, view, target_shape):
    """Another view of the same base with the same final shape (overlapping, shifted, reversed)."""
    if not view.slices:
        slices = [("r", NONE, NONE, 1)] * len(base_shape)
    else:
        slices = list(view.slices)
    vshape = []
    for s, b in zip(slices, base_shape):
        if s[0] == "r":
            vshape.append(len(range(*slice(s[1], s[2], s[3]).indices(b))))
    new = []
    k = 0
    for s, b in zip(slices, base_shape):
        if s[0] == "i":
            new.append(("i", rng.below(b)))
            continue
        e = vshape[k]
        k += 1
        r = slice_for(rng, e, b) if rng.chance(0.8) else None
        new.append(r[1] if r else s)
    axes = view.axes
    nd = len(target_shape)
    if nd >= 2 and target_shape[-1] == target_shape[-2] and rng.chance(0.4):
        # the transpose of a square view has the same shape: x = x.T + ...
        axes = list(axes) if axes is not None else list(range(nd))
        axes[-1], axes[-2] = axes[-2], axes[-1]
    v = View(view.base, new, axes)
    if v.apply(np.empty(base_shape)).shape != tuple(target_shape):
        return View(view.base, list(view.slices), view.axes)
    return v


# ---- data --------------------------------------------------------------------------------------
INT_EDGES = {
    "int8": [0, -1, 1, -128, 127, -127, 64, 100],
    "int16": [0, -1, 1, -2**15, 2**15 - 1, -2**15 + 1, 255, 256, -256],
    "int32": [0, -1, 1, -2**31, 2**31 - 1, -2**31 + 1, 2**30, 65536, -65536],
    "int64": [0, -1, 1, -2**63, 2**63 - 1, -2**63 + 1, 2**31, -2**31 - 1, 2**53 + 1, 2**40],
    "uint8": [0, 1, 2, 127, 128, 254, 255],
    "uint16": [0, 1, 255, 256, 2**15, 2**16 - 2, 2**16 - 1],
    "uint32": [0, 1, 2**16, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1],
    "uint64": [0, 1, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1],
}
FLOAT_EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 1e30, -1e30, 1e-30, 1e-40,
               1e300, -1e300, 5e-324, 1.7976931348623157e308, 3.4028234663852886e38, 2.0**63, -2.0**31,
               4294967296.5, 2147483647.5]


def values(rng, dtype, n, kind):
    p_edge = 0.0 if kind == "tame" else 0.25
    out = []
    for _ in range(n):
        edge = rng.chance(p_edge)
        if dtype == "bool":
            out.append(rng.chance(0.5))
        elif is_int(dtype):
            if edge:
                out.append(rng.choice(INT_EDGES[dtype]))
            else:
                info = np.iinfo(dtype)
                lo = max(int(info.min), -9 if info.min < 0 else 0)  # small values, then wider ones
                v = rng.range(lo, lo + 18) if rng.chance(0.8) else rng.range(max(int(info.min), -1000), 1000)
                out.append(min(v, int(info.max)))
        else:
            if edge:
                out.append(rng.choice(FLOAT_EDGES))
            elif rng.chance(0.5):
                out.append(rng.range(-16, 16) / (1 << rng.below(4)))
            else:  # a full-precision value, rounded to the dtype below
                out.append((rng.random() * 2 - 1) * 10.0 ** rng.range(-3, 3))
    arr = np.array(out, dtype=np.float64 if is_float(dtype) else object)
    with np.errstate(all="ignore"):
        return arr.astype(dtype)


def make_variant(rng, leaf_dtypes, dest_leaf, kind, shapes=None, out=None):
    """shapes: every leaf's shape (planned around reductions), else each broadcasts to `out`."""
    if out is None:
        out = out_shape(rng)
    bases, base_dtype, views = [], [], []
    for i, dt in enumerate(leaf_dtypes):
        if shapes is not None:
            shape = shapes[i]
        else:
            shape = out if i == dest_leaf else leaf_shape(rng, out)
        # Share a buffer with an earlier leaf of the same dtype and shape (overlapping views).
        partners = [j for j in range(i) if leaf_dtypes[j] == dt and views[j] is not None
                    and views[j].apply(np.empty(bases[views[j].base].shape)).shape == tuple(shape)]
        if partners and rng.chance(0.5 if i == dest_leaf else 0.3):
            j = rng.choice(partners)
            v = views[j]
            views.append(v if rng.chance(0.3) else reslice(rng, bases[v.base].shape, v, shape))
            continue
        bshape, v = make_view(rng, shape, len(bases))
        bases.append(np.empty(bshape))
        base_dtype.append(dt)
        views.append(v)
    if dest_leaf >= 0 and rng.chance(0.6):
        # Another leaf reads the destination's buffer through a different view (shifted,
        # reversed, transposed): jetfuse must read everything before it writes, as numpy does.
        others = [k for k in range(len(leaf_dtypes)) if k != dest_leaf and leaf_dtypes[k] == leaf_dtypes[dest_leaf]
                  and (shapes is None or tuple(shapes[k]) == tuple(out))]
        if others:
            k = rng.choice(others)
            v = views[dest_leaf]
            views[k] = reslice(rng, bases[v.base].shape, v, out)
    for k, dt in enumerate(base_dtype):
        n = int(np.prod(bases[k].shape))
        bases[k] = values(rng, dt, n, kind).reshape(bases[k].shape)
    return Variant(bases, views, kind)


# ---- shapes around reductions ------------------------------------------------------------------
MAX_RANK = 4          # of a reduction's operand (the views add an integer index: 5 arguments)
MAX_OPERAND = 20000   # elements of a reduction's operand


def norm_axes(axes, rank):
    """The axes normalized for a rank, or None when numpy raises (out of bounds, duplicates)."""
    if any(a < -rank or a >= rank for a in axes):
        return None
    n = tuple(a + rank if a < 0 else a for a in axes)
    return n if len(set(n)) == len(n) else None


def reduced_extent(rng):
    """An extent that a reduction runs over: now and then 0 (an empty reduction) or long."""
    if rng.chance(0.05):
        return 0
    if rng.chance(0.12):
        return rng.choice([16, 17, 64, 129, 300, 1000, 2051])
    return rng.choice(EXTENTS)


class Unplanned(Exception):
    """The shapes do not fit together where the planner did not mean them to (retry)."""


class ShapePlan:
    """Chooses every leaf's shape top-down: a node's value must broadcast to its target shape; a
    reduction's operand gets the shape S that its axes reduce to the target (keepdims: 1s that
    broadcast back), with at least one leaf of S's full rank so that the axes are valid. A leaf
    used twice keeps its first shape (the result must still fit: else the plan is retried)."""

    def __init__(self, rng, nleaves, dest_leaf, out):
        self.rng = rng
        self.shapes = [None] * nleaves
        self.out = tuple(out)
        if dest_leaf >= 0:
            self.shapes[dest_leaf] = tuple(out)
        self.bad_axes = False  # a reduction's operand deliberately of a rank its axes do not fit

    def visit(self, node, target, full):
        r = self.rng
        if isinstance(node, eg.Scalar):
            return
        if isinstance(node, eg.Leaf):
            if self.shapes[node.idx] is None:
                self.shapes[node.idx] = tuple(target) if full else leaf_shape(r, tuple(target))
            return
        if isinstance(node, eg.Reduce):
            self.reduce(node, list(target), full)
            return
        kids = r.shuffle([c for c in eg.children(node) if not isinstance(c, eg.Scalar)])
        # Operands with reductions first: their leaves need the ranks the axes ask for.
        kids.sort(key=lambda c: not eg.has_reduction(c))
        f = r.below(len(kids)) if full and kids else -1
        for i, c in enumerate(kids):
            self.visit(c, target, i == f)

    def fit(self, shape, n):
        """shape with n axes: leading axes dropped or added (extent 1 mostly)."""
        shape = list(shape)
        while len(shape) > n:
            shape.pop(0)
        while len(shape) < n:
            shape.insert(0, 1 if self.rng.chance(0.6) else self.rng.choice(EXTENTS))
        return shape

    def reduce(self, node, target, full):
        r = self.rng
        R = list(target) if full else list(leaf_shape(r, tuple(target)))
        axes = node.axes
        if axes is None:
            if node.keepdims:  # the result is 1s of the operand's rank
                S = [reduced_extent(r) for _ in R]
            else:
                S = [reduced_extent(r) for _ in range(r.weighted([(0, 1), (1, 4), (2, 4), (3, 2)]))]
        else:
            m = len(axes)
            fits = [k for k in range(MAX_RANK + 1) if norm_axes(axes, k) is not None]
            misfits = [k for k in range(MAX_RANK + 1) if k not in fits]
            if not fits or (misfits and r.chance(0.03)):
                self.bad_axes = True
                S = [r.choice(EXTENTS) for _ in range(r.choice(misfits))]
            else:
                want = len(R) if node.keepdims else len(R) + m
                above = [k for k in fits if k >= want]
                rank = min(above) if above else max(fits)
                P = norm_axes(axes, rank)
                if node.keepdims:
                    S = self.fit(R, rank)
                    for p in P:
                        S[p] = reduced_extent(r)
                else:
                    rest = iter(self.fit(R, rank - m))
                    S = [reduced_extent(r) if k in P else next(rest) for k in range(rank)]
        while S and int(np.prod(S)) > MAX_OPERAND:
            k = max(range(len(S)), key=lambda i: S[i])
            S[k] = r.choice([2, 3, 5])
        self.visit(node.arg, S, True)


def shape_of(node, shapes):
    """numpy's shape of a node; raises Unplanned where numpy would raise for shapes (broadcasting,
    axes). Empty reductions are not checked here (they are meant)."""
    if isinstance(node, eg.Scalar):
        return ()
    if isinstance(node, eg.Leaf):
        return tuple(shapes[node.idx])
    if isinstance(node, eg.Reduce):
        s = shape_of(node.arg, shapes)
        axes = tuple(range(len(s))) if node.axis is None else norm_axes(node.axes, len(s))
        if axes is None:
            raise Unplanned("axes")
        return tuple(1 if k in axes else e for k, e in enumerate(s) if node.keepdims or k not in axes)
    try:
        return np.broadcast_shapes(*[shape_of(c, shapes) for c in eg.children(node)])
    except ValueError:
        raise Unplanned("broadcast")


def plan_shapes(rng, case, out):
    """(leaf shapes, the destination's shape) for a case with reductions; the destination's shape
    is drawn again when the plan does not fit (x = f(sum(x, {0, -2})) needs x of rank 3 or more)."""
    for attempt in range(16):
        if attempt >= 4:
            out = out_shape(rng)
        p = ShapePlan(rng, len(case.leaves), case.dest_leaf, out)
        p.visit(case.root, out, False)
        if case.root2 is not None:
            p.visit(case.root2, out, False)
        for i, s in enumerate(p.shapes):
            if s is None:  # not reached (cannot happen: every leaf is in a tree)
                p.shapes[i] = leaf_shape(rng, tuple(out))
        if p.bad_axes:
            return p.shapes, out
        try:
            res = shape_of(case.root, p.shapes)
            if case.root2 is not None:
                np.broadcast_shapes(res, shape_of(case.root2, p.shapes))
            if case.dest_leaf >= 0 and (len(res) > len(out) or np.broadcast_shapes(res, out) != tuple(out)):
                raise Unplanned("destination")
            return p.shapes, out
        except (Unplanned, ValueError):
            if attempt == 15:
                return p.shapes, out  # numpy raises: so must jetfuse
            continue


def make_variants(rng, case, count):
    out = []
    planned = eg.has_reduction(case.root) or eg.has_reduction(case.root2)
    for k in range(count):
        kind = "tame" if k % 2 == 0 else "edge"
        if planned:
            shapes, o = plan_shapes(rng, case, out_shape(rng))
            out.append(make_variant(rng, case.leaves, case.dest_leaf, kind, shapes, o))
        else:
            out.append(make_variant(rng, case.leaves, case.dest_leaf, kind))
    return out
