#!/usr/bin/env python3
"""Writes scatter_table.txt: numpy's scatters for tests/test_scatter.cpp.

    python3 tests/data/gen_scatter_table.py > tests/data/scatter_table.txt

Operations: np.put (modes raise, wrap, clip; values repeated cyclically), x[idx] = v, x[idx] += v
(buffered), and np.add.at, np.subtract.at, np.multiply.at, np.minimum.at, np.maximum.at (unbuffered),
on x of 1 to 3 dimensions and every dtype, with duplicate and negative indices, broadcasting values,
Python scalars (weak, NEP 50) and numpy's errors.

Each case is five lines: "case <op> <mode> <x dtype> <values: array or scalar> <values dtype>
<x shape> <indices shape> <values shape>" (shapes as 3x4, "-" for a 0-d shape), then x, the indices,
the values, and either x afterwards (C order) or "error <numpy exception> <message>". Floats are
written with float.hex, integers in decimal, bools as 0/1.
"""
import numpy as np

rng = np.random.default_rng(2027)
DTYPES = ["bool", "int32", "int64", "float32", "float64"]


def text(a):
    a = np.asarray(a).ravel()
    if a.dtype.kind == "f":
        return " ".join(float(e).hex() for e in a)
    return " ".join(str(int(e)) for e in a)


def shape_text(s):
    return "x".join(str(d) for d in s) if len(s) else "-"


def values(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return rng.random(n).reshape(shape) < 0.5
    if dtype.startswith("int"):
        v = rng.integers(-50, 50, n)
        if dtype == "int32" and n >= 2:
            v[:2] = [2**31 - 1, -(2**31)]  # wrapping sums
        return v.astype(dtype).reshape(shape)
    v = rng.normal(0, 10, n)
    if n >= 3:
        v[:3] = [np.nan, -0.0, np.inf]
    return v.astype(dtype).reshape(shape)


def indices(size, shape, lo=None, hi=None):
    lo = -size if lo is None else lo
    hi = size - 1 if hi is None else hi
    return rng.integers(lo, hi + 1, int(np.prod(shape))).reshape(shape) if size or lo <= hi else np.zeros(shape, np.int64)


def emit(op, mode, x, idx, v, vkind):
    """Runs the operation on a copy of x and prints the case."""
    v_dtype = np.asarray(v).dtype.name if vkind == "array" else {bool: "pybool", int: "pyint", float: "pyfloat"}[type(v)]
    print("case", op, mode, x.dtype.name, vkind, v_dtype, shape_text(x.shape), shape_text(np.shape(idx)),
          shape_text(np.shape(v)))
    print(text(x))
    print(text(idx))
    print(text(np.asarray(v)))
    y = x.copy()
    try:
        with np.errstate(all="ignore"):
            if op == "put":
                np.put(y, idx, v, mode=mode)
            elif op == "setitem":
                y[np.asarray(idx)] = v
            elif op == "iadd":
                y[np.asarray(idx)] += v
            else:
                getattr(np, op[:-3]).at(y, idx, v)
        print(text(y))
    except Exception as e:  # numpy's error, and x as it must stay (numpy itself may have written)
        print("error", type(e).__name__, str(e))


print("# numpy", np.__version__, "scatter cases (gen_scatter_table.py)")

# np.put: every dtype, duplicates and negative indices, every mode, cyclic values, 2-d x and indices.
for dt in DTYPES:
    for xs, ishape, vshape in [((7,), (5,), (5,)), ((7,), (9,), (3,)), ((3, 4), (2, 3), (2, 3)), ((6,), (4,), (7,)),
                               ((5,), (12,), (1,)), ((4,), (0,), (0,)), ((4,), (3,), (0,)), ((2, 3), (2, 2), (4,))]:
        for mode in ["raise", "wrap", "clip"]:
            x = values(dt, xs)
            n = x.size
            lo, hi = (-n, n - 1) if mode == "raise" else (-3 * n, 3 * n)
            emit("put", mode, x, indices(n, ishape, lo, hi), values(dt, vshape), "array")
    x = values(dt, (6,))
    emit("put", "raise", x, np.array([0, 5, 0, -1, 3, 0]), values(dt, (6,)), "array")  # last write wins
    emit("put", "raise", x, np.array([1, 6, 2]), values(dt, (3,)), "array")  # IndexError
    emit("put", "raise", x, np.array([1, -7]), values(dt, (2,)), "array")
    emit("put", "raise", values(dt, (0,)), np.array([0]), values(dt, (1,)), "array")  # empty array
    emit("put", "wrap", values(dt, (0,)), np.array([0]), values(dt, (1,)), "array")
    emit("put", "raise", values(dt, (0,)), np.zeros(0, np.int64), values(dt, (1,)), "array")
    emit("put", "raise", values(dt, (5,)), np.array([4, 0, 4]), {"bool": True, "int32": 7, "int64": -3,
                                                                 "float32": 2.5, "float64": -1.25}[dt], "scalar")
# values of another dtype: cast as numpy (unsafe); Python scalars converted (an int too large raises)
emit("put", "raise", values("int32", (5,)), np.array([0, 1]), np.array([1.7, -2.9]), "array")
emit("put", "raise", values("int32", (5,)), np.array([0, 1]), np.array([2**40, 3]), "array")
emit("put", "raise", values("int32", (5,)), np.array([2]), 2**40, "scalar")
emit("put", "raise", values("int32", (5,)), np.array([2]), 1.7, "scalar")
emit("put", "raise", values("float32", (5,)), np.array([2]), 1e300, "scalar")
emit("put", "raise", values("bool", (5,)), np.array([2, 3]), np.array([0.0, 0.5]), "array")

# x[idx] = v: 1-3-d x, indices of 0-2 dimensions, values broadcast to idx.shape + x.shape[1:].
for dt in DTYPES:
    for xs, ishape, vshape in [((7,), (5,), (5,)), ((7,), (4,), ()), ((5, 3), (4,), (3,)), ((5, 3), (2, 2), (2, 2, 3)),
                               ((4, 3, 2), (3,), (3, 1, 2)), ((4, 3, 2), (), (3, 2)), ((5, 3), (4,), (4, 1)),
                               ((6,), (0,), (0,)), ((3, 0), (2,), (2, 0))]:
        x = values(dt, xs)
        emit("setitem", "raise", x, indices(xs[0], ishape), values(dt, vshape), "array")
    x = values(dt, (4, 2))
    emit("setitem", "raise", x, np.array([[1, 3], [1, -3]]), values(dt, (2, 2, 2)), "array")  # last write wins
    emit("setitem", "raise", x, np.array([0, 4]), values(dt, (2,)), "array")  # IndexError
    emit("setitem", "raise", x, np.array([0, 1]), values(dt, (3,)), "array")  # shape mismatch
    emit("setitem", "raise", values(dt, (3, 0)), np.array([5]), values(dt, (1, 0)), "array")  # checked though empty
    emit("setitem", "raise", x, np.array([2, -1, 2]), {"bool": False, "int32": -8, "int64": 9, "float32": 0.5,
                                                         "float64": 1e-3}[dt], "scalar")
emit("setitem", "raise", values("int64", (4,)), np.array([3, 0]), np.array([7.9, -7.9]), "array")
emit("setitem", "raise", values("float32", (4,)), np.array([3, 0]), np.array([1 / 3, 2**-149]), "array")

# x[idx] += v: buffered (a duplicate adds once).
for dt in ["int32", "int64", "float32", "float64"]:
    x = values(dt, (6,))
    emit("iadd", "raise", x, np.array([1, 1, 4, -1, 1]), values(dt, (5,)), "array")
    emit("iadd", "raise", values(dt, (4, 2)), np.array([3, 3]), values(dt, (2,)), "array")
emit("iadd", "raise", values("float64", (5,)), np.array([0, 0, 2]), 1.5, "scalar")

# ufunc.at: every duplicate counts, in numpy's order; every dtype, values of other dtypes.
for op in ["add_at", "subtract_at", "multiply_at", "minimum_at", "maximum_at"]:
    for dt in DTYPES:
        if op == "subtract_at" and dt == "bool":
            continue
        for xs, ishape, vshape in [((6,), (20,), (20,)), ((4, 3), (7,), (3,)), ((4, 3), (2, 3), (2, 3, 3)),
                                   ((5,), (6,), ()), ((3,), (0,), (0,))]:
            x = values(dt, xs)
            emit(op, "raise", x, indices(xs[0], ishape), values(dt, vshape), "array")
        emit(op, "raise", values(dt, (4,)), np.array([1, 9]), values(dt, (2,)), "array")  # IndexError, x untouched
        emit(op, "raise", values(dt, (4, 2)), np.array([1, 2]), values(dt, (3,)), "array")  # not broadcastable
        emit(op, "raise", values(dt, (4,)), np.array([2, 2, 2]), {"bool": True, "int32": 3, "int64": -2,
                                                                  "float32": 0.5, "float64": 2.0}[dt], "scalar")
# The dtype numpy computes in: int x with float values (cast back after each step), int32 with
# int64 values (minimum in int64, then wrapped), float32 with float64 values, bool with an int.
emit("add_at", "raise", values("int64", (4,)), np.array([1, 1, 2]), np.array([1.5, 1.5, -0.5]), "array")
emit("add_at", "raise", values("int32", (4,)), np.array([1, 1]), 1.5, "scalar")
emit("minimum_at", "raise", np.zeros(4, np.int32), np.array([0, 1]), np.array([2**40, -(2**40) + 5]), "array")
emit("add_at", "raise", values("float32", (3,)), np.array([0, 0, 0]), np.array([1e-8, 1.0, 1e-8]), "array")
emit("add_at", "raise", values("bool", (4,)), np.array([0, 1]), 2, "scalar")
emit("add_at", "raise", values("int32", (4,)), np.array([0]), 2**40, "scalar")
emit("multiply_at", "raise", values("float64", (3,)), np.array([0, 0, 1]), np.array([np.nan, 2.0, -0.0]), "array")
