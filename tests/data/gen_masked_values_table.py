#!/usr/bin/env python3
"""Writes masked_values_table.txt: numpy's boolean-mask assignment of values, x[mask] = v, for masks
of x's rank and of lower rank, values of the count, of size 1, 0-d, broadcast along x's other axes,
and numpy's errors (a wrong count, 2-d values for a full mask, a shape mismatch, a mask that does
not match x), with float values cast into integer x (numpy casts unsafely), for
tests/test_masked_values.cpp.

    python3 tests/data/gen_masked_values_table.py > tests/data/masked_values_table.txt

Each case is six lines: "case <x dtype> <x shape> <mask shape> <v dtype> <v shape>" (shapes as 2x3,
"scalar" for 0-d), x's values in C order, the mask's (0/1), v's, then "ok" and x's values after
the assignment, or "error <numpy's exception>" and its message. Floats are written with float.hex,
integers in decimal, "-" for no values.
"""
import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(2031)



def values(dtype, shape):
    n = int(np.prod(shape))
    if dtype in ("int32", "int64"):
        return rng.integers(-50, 50, n).astype(dtype).reshape(shape)
    return np.round(rng.normal(0, 20, n), 3).astype(dtype).reshape(shape)


def mask(shape, p):
    return rng.random(int(np.prod(shape))).reshape(shape) < p


def case(xt, xs, m, vt, vs):
    x = values(xt, xs)
    v = values(vt, vs)
    print("case", xt, shape_text(xs), shape_text(m.shape), vt, shape_text(vs))
    print(text(x))
    print(" ".join(str(int(e)) for e in m.ravel()) or "-")
    print(text(v))
    y = x.copy()
    try:
        y[m] = v
        print("ok")
        print(text(y))
    except (ValueError, TypeError, IndexError) as e:
        print("error", type(e).__name__)
        print(str(e))


for xt, vt in [("float64", "float64"), ("float32", "float64"), ("int32", "float64"), ("int64", "int32")]:
    for xs in [(1,), (7,), (300,), (4, 5), (3, 4, 2)]:
        for p in [0.0, 0.5, 1.0]:
            m = mask(xs, p)
            c = int(m.sum())
            case(xt, xs, m, vt, (c,))        # one value per selected element
            case(xt, xs, m, vt, (1,))        # broadcast from one value
            case(xt, xs, m, vt, ())          # a 0-d array
        m = mask(xs, 0.5)
        c = int(m.sum())
        case(xt, xs, m, vt, (c + 1,))       # a wrong count
        case(xt, xs, m, vt, (1, c))         # 2-d values for single elements
    # masks of lower rank select rows: values broadcast to (count, other axes)
    for xs, ms in [((4, 5), (4,)), ((3, 4, 2), (3,)), ((3, 4, 2), (3, 4)), ((6, 3), (6,))]:
        m = mask(ms, 0.5)
        c = int(m.sum())
        rest = xs[len(ms):]
        case(xt, xs, m, vt, (c,) + rest)
        case(xt, xs, m, vt, rest)
        case(xt, xs, m, vt, (1,) + rest[-1:])
        case(xt, xs, m, vt, (c + 1,) + rest)  # numpy's shape mismatch
# the mask does not match x
case("float64", (4,), mask((5,), 0.5), "float64", (2,))
case("float64", (4, 3), mask((4, 2), 0.5), "float64", (2,))
