#!/usr/bin/env python3
"""Writes compaction_table.txt: numpy's x[mask] (masks of x's shape and of lower rank), flatnonzero,
nonzero, argwhere and compress (axis None and given), with empty, size-1 and 0-d shapes, masks of
0 %, one, about half and 100 % true, zeros of both signs and NaN (nonzero), and numpy's errors, for
tests/test_compaction.cpp.

    python3 tests/data/gen_compaction_table.py > tests/data/compaction_table.txt

Each case is five lines: "case <function> <dtype> <x shape> <mask shape> <axis>" (shapes as 2x3,
"scalar" for 0-d, "-" when there is no mask; axis "None" or an integer), x's values in C order, the
mask's (0/1, "-" for none), then either "ok <result shape>" and the result's values (nonzero: its
arrays one after the other), or "error <numpy's exception>" and its message. Floats are written with
float.hex (float32 values exactly), integers in decimal, bools as 0/1.
"""
import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(2027)



def values(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype in ("int32", "int64"):
        return rng.integers(-3, 4, n).astype(dtype).reshape(shape)  # zeros among them
    v = np.round(rng.normal(0, 2, n), 2).astype(dtype)
    for k, e in enumerate([0.0, -0.0, np.nan, np.inf][: n]):
        v[(5 * k + 2) % n] = e
    return v.reshape(shape)


def masks(shape):
    n = int(np.prod(shape))
    out = [np.zeros(n, bool), np.ones(n, bool), rng.random(n) < 0.5]
    if n:
        one = np.zeros(n, bool)
        one[n // 2] = True
        out.append(one)
    return [m.reshape(shape) for m in out]


def case(fn, dtype, x, mshape, axis, m, run):
    print("case", fn, dtype, shape_text(x.shape), "-" if mshape is None else shape_text(mshape), axis)
    print(text(x))
    print("-" if m is None else text(np.asarray(m).astype(np.int64)))
    try:
        r = run()
    except Exception as e:  # noqa: BLE001 - numpy's errors are part of the table
        print("error", type(e).__name__)
        print(str(e))
        return
    if isinstance(r, tuple):
        print("ok", len(r[0]) if r else 0)
        print(text(np.concatenate([a.ravel() for a in r])) if r else "-")
    else:
        print("ok", shape_text(r.shape))
        print(text(r))


print("# numpy", np.__version__, "compaction cases (gen_compaction_table.py)")
shapes = [(), (0,), (1,), (7,), (40,), (3, 4), (2, 0, 3), (2, 3, 4), (1, 5, 1)]
for dtype in ("bool", "int32", "int64", "float32", "float64"):
    for shape in shapes:
        x = values(dtype, shape)
        for m in masks(shape):
            case("select", dtype, x, m.shape, "None", m, lambda: x[m])
        if len(shape) >= 2:  # a mask of lower rank: whole rows
            for m in masks(shape[:1]):
                case("select", dtype, x, m.shape, "None", m, lambda: x[m])
            m = masks(shape[:2])[-1]
            case("select", dtype, x, m.shape, "None", m, lambda: x[m])
        for fn in ("flatnonzero", "nonzero", "argwhere"):
            case(fn, dtype, x, None, "None", None, lambda: getattr(np, fn)(x))
        if len(shape) >= 1:
            n = int(np.prod(shape))
            for c in (rng.random(n) < 0.5, rng.random(max(n - 2, 0)) < 0.5):
                case("compress", dtype, x, c.shape, "None", c, lambda: np.compress(c, x))
            for axis in range(len(shape)):
                c = rng.random(shape[axis]) < 0.5
                case("compress", dtype, x, c.shape, axis, c, lambda: np.compress(c, x, axis=axis))
# numpy's errors.
x = values("float64", (3, 4))
for mshape in [(4,), (3, 5), (3, 4, 2), (2, 4)]:
    m = rng.random(int(np.prod(mshape))).reshape(mshape) < 0.5
    case("select", "float64", x, mshape, "None", m, lambda: x[m])
c = np.array([False, True, True, True])
case("compress", "int64", np.arange(3), c.shape, "None", c, lambda: np.compress(c, np.arange(3)))
c = np.array([False, True, True, True, False])
case("compress", "int64", np.arange(6).reshape(3, 2), c.shape, 0, c, lambda: np.compress(c, np.arange(6).reshape(3, 2), axis=0))
c2 = np.array([[True, False], [False, True]])
case("compress", "int64", np.arange(4), c2.shape, "None", c2, lambda: np.compress(c2, np.arange(4)))
s = np.array(2.5)
case("nonzero", "float64", s, None, "None", None, lambda: np.nonzero(s))
