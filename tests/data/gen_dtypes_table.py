#!/usr/bin/env python3
"""Writes dtypes_table.txt: numpy 2's values for the integer dtypes (int8 .. int64, uint8 .. uint64)
and the operations whose meaning depends on them, for tests/test_dtypes.cpp and test_dtypes_ops.cpp.

    python3 tests/data/gen_dtypes_table.py > tests/data/dtypes_table.txt

Each case is a header line and three lines of values (float.hex for floats, decimal integers, bools
as 0/1, "-" for none):
  case binary OP A B R N     x (dtype A), y (dtype B), np.OP(x, y) (dtype R); N elements
  case unary OP A R N        x, np.OP(x), "-"
  case cast A R N            x, x.astype(R), "-"
  case reduce NAME A R N     x (1-d), np.NAME(x) (a value, or the array of a scan), "-"
  case scalar OP A K R       x, np.OP(x, K) with K a Python int (weak), "-"; R "error": the third
                             line is numpy's OverflowError message instead
  case sort A N              x, np.sort(x), np.argsort(x, kind="stable")
Wrap-around (int8 127 + 1, uint8 0 - 1), division and remainder by zero (numpy: 0, with a
warning), INT_MIN // -1, shifts by the width or more and by negative counts, mixed signed and
unsigned operands (numpy's promotion, and its exact uint64/int64 comparisons), bool arithmetic
numpy computes in int8, casts that wrap. Not here, by design:
  - float to integer casts of NaN or of values outside the target's range: numpy leaves them
    undefined (on x86-64 its contiguous and strided loops disagree), so only in-range floats;
  - integer power with a negative exponent: numpy raises, jetfuse gives 0 (docs/design.md);
  - float16 results: numpy's float functions of bool, int8 and uint8 give float16, jetfuse float32
    (its unary sqrt rows are numpy's sqrt of x.astype(float32), what jetfuse computes).
"""
import warnings

import numpy as np

from table_text import text

rng = np.random.default_rng(2613)
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NEW = ["int8", "int16", "uint8", "uint16", "uint32", "uint64"]


def edges(dt):
    """The edge values of an integer dtype, then random ones over its whole range."""
    info = np.iinfo(dt)
    e = [info.min, info.min + 1, 0, 1, 2, 3, 7, info.max - 1, info.max]
    if info.min < 0:
        e += [-1, -2, -3, -7]
    r = rng.integers(info.min, info.max, 12, dtype=dt, endpoint=True)
    small = rng.integers(max(info.min, -100), 100, 8).astype(dt)
    return np.concatenate([np.array(e, dtype=dt), r, small])


def pairs_of(a, b):
    """Every pair of a's and b's edge values (a cartesian product, trimmed) and random pairs."""
    x, y = np.meshgrid(a, b, indexing="ij")
    x, y = x.ravel(), y.ravel()
    keep = rng.permutation(len(x))[:100]
    return x[keep], y[keep]


def result_of(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f()


def emit(header, *lines):
    lines = list(lines) + ["-"] * (3 - len(lines))
    print("case", header)
    for line in lines:
        print(line)


# ---- binary operations -------------------------------------------------------------------------
ARITH = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "minimum", "maximum"]
COMPARE = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
BITS = ["bitwise_and", "bitwise_or", "bitwise_xor"]
SHIFTS = ["left_shift", "right_shift"]
# (A, B): each new dtype with itself, mixed signed/unsigned pairs (numpy's promotion), with floats.
SAME = [(d, d) for d in NEW]
MIXED = [("int8", "uint8"), ("uint8", "int16"), ("int16", "uint16"), ("uint32", "int32"), ("int64", "uint32"),
         ("uint64", "int64"), ("int8", "uint64"), ("uint16", "int64")]
WITH_FLOAT = [("int16", "float32"), ("uint8", "float32"), ("uint32", "float32"), ("uint64", "float64")]


def binary_cases():
    for a, b in SAME + MIXED + WITH_FLOAT:
        x, y = pairs_of(edges(a) if a in INTS else rng.normal(0, 100, 20).astype(a),
                        edges(b) if b in INTS else rng.normal(0, 100, 20).astype(b))
        ops = ARITH + COMPARE
        integer_result = np.result_type(a, b).kind in "iu"
        if integer_result:
            ops = ops + BITS + SHIFTS + ["power"]
        for op in ops:
            xs, ys = x, y
            if op == "power":  # numpy raises for negative integer exponents
                ys = np.abs(y.astype("int64") % 20).astype(b)
            if op in SHIFTS:  # counts around the width, negative ones included
                bits = 8 * np.result_type(a, b).itemsize
                ys = rng.integers(-3 if np.dtype(b).kind == "i" else 0, bits + 3, len(y)).astype(b)
            r = result_of(lambda: getattr(np, op)(xs, ys))
            emit("binary %s %s %s %s %d" % (op, a, b, r.dtype, len(xs)), text(xs), text(ys), text(r))
    # uint64 against int64 near 2**53 and 2**63: numpy compares exactly (float64 could not).
    x = np.array([2**53 + 1, 2**64 - 1, 2**63, 0, 5, 2**63 - 1, 2**53], dtype="uint64")
    y = np.array([2**53, -1, 2**63 - 1, -5, 5, 2**63 - 1, 2**53 + 1], dtype="int64")
    for op in COMPARE:
        for xs, ys in ((x, y), (y, x)):
            r = getattr(np, op)(xs, ys)
            emit("binary %s %s %s bool %d" % (op, xs.dtype, ys.dtype, len(xs)), text(xs), text(ys), text(r))
    # bool arithmetic numpy computes in int8
    b = np.array([True, False, True, False])
    c = np.array([True, True, False, False])
    for op in ["floor_divide", "remainder", "power", "left_shift", "right_shift"]:
        r = result_of(lambda: getattr(np, op)(b, c))
        emit("binary %s bool bool %s 4" % (op, r.dtype), text(b), text(c), text(r))


# ---- unary operations --------------------------------------------------------------------------
def unary_cases():
    for a in NEW:
        x = edges(a)
        for op in ["negative", "absolute", "square", "reciprocal", "sign", "invert", "floor"]:
            r = result_of(lambda: getattr(np, op)(x))
            emit("unary %s %s %s %d" % (op, a, r.dtype, len(x)), text(x), text(r))
        r = result_of(lambda: np.sqrt(x))
        if r.dtype == np.float16:  # jetfuse computes in float32 (no float16)
            r = result_of(lambda: np.sqrt(x.astype("float32")))
        emit("unary sqrt %s %s %d" % (a, r.dtype, len(x)), text(x), text(r))
    for op in ["square", "reciprocal"]:
        x = np.array([True, False])
        r = result_of(lambda: getattr(np, op)(x))
        emit("unary %s bool %s 2" % (op, r.dtype), text(x), text(r))


# ---- casts -------------------------------------------------------------------------------------
def in_range_floats(dt, target):
    """Floats whose conversion to integer dtype `target` numpy defines (inside its range)."""
    info = np.iinfo(target)
    lo, hi = float(info.min), float(info.max)
    v = [0.0, -0.0, 0.5, 1.5, 2.9, hi * 0.5, lo * 0.5, -0.99]
    if target.startswith("uint"):
        v = [e for e in v if e > -1.0]
    v += list(rng.uniform(max(lo, -1e6), min(hi, 1e6), 8))
    # the largest floats of dt below hi + 1 and the smallest above lo - 1 (truncation stays in range)
    for edge, toward in ((hi + 1.0, -np.inf), (lo - 1.0, np.inf)):
        f = np.dtype(dt).type(edge)
        while float(f) >= hi + 1.0 or float(f) <= lo - 1.0:
            f = np.nextafter(f, np.dtype(dt).type(toward))
        v.append(float(f))
    return np.array(v).astype(dt)


def cast_cases():
    for a in ["bool"] + INTS + ["float32", "float64"]:
        for r in ["bool"] + INTS + ["float32", "float64"]:
            if a not in NEW and r not in NEW:
                continue
            if a in INTS:
                x = edges(a)
            elif a == "bool":
                x = np.array([True, False, True])
            elif r in INTS:
                x = in_range_floats(a, r)
            else:
                x = np.concatenate([rng.normal(0, 1e3, 10), [np.nan, np.inf, -0.0]]).astype(a)
            y = x.astype(r)
            emit("cast %s %s %d" % (a, r, len(x)), text(x), text(y))


# ---- reductions and scans ----------------------------------------------------------------------
def reduce_cases():
    for a in NEW:
        info = np.iinfo(a)
        for n in (1, 7, 300):
            x = rng.integers(info.min, info.max, n, dtype=a, endpoint=True)
            if n == 7:  # wrap-around of the accumulator: the largest values summed
                x[:3] = info.max
            small = rng.integers(max(info.min, -3), 4, n).astype(a)  # products that do not vanish
            for name in ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "cumsum", "cumprod",
                         "count_nonzero"]:
                v = small if name in ("prod", "cumprod") else x
                r = result_of(lambda: getattr(np, name)(v))
                r = np.asarray(r)
                emit("reduce %s %s %s %d" % (name, a, r.dtype, n), text(v), text(r))


# ---- weak Python integers ----------------------------------------------------------------------
# numpy before 2.5 wraps a Python int outside the dtype np.where selects in; 2.5 raises OverflowError
# as arithmetic does (numpy PR 30803), and so does jetfuse: the table holds 2.5's answer.
WHERE_WRAPS = np.lib.NumpyVersion(np.__version__) < "2.5.0"

def scalar_cases():
    for a in NEW:
        info = np.iinfo(a)
        x = edges(a)
        for k in sorted({0, 1, -1, 100, 200, 300, 70000, int(info.max), int(info.min), int(info.max) + 1,
                         int(info.min) - 1, 2**40, -(2**40)}):
            if not -(2**63) <= k < 2**64:
                continue
            for op in ["add", "multiply", "less", "equal", "greater_equal", "where"]:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        if op == "where":
                            if WHERE_WRAPS and not info.min <= k <= info.max:
                                # numpy 2.5's answer (numpy PR 30803); 2.4 wrapped k silently
                                raise OverflowError("Python integer %d out of bounds for %s" % (k, a))
                            r = np.where(x % 2 == 0, x, k)
                        else:
                            r = getattr(np, op)(x, k)
                    emit("scalar %s %s %d %s" % (op, a, k, r.dtype), text(x), text(r))
                except OverflowError as e:
                    emit("scalar %s %s %d error" % (op, a, k), text(x), str(e))


# ---- sorting -----------------------------------------------------------------------------------
def sort_cases():
    for a in NEW:
        info = np.iinfo(a)
        for n in (0, 1, 9, 1000):
            x = rng.integers(info.min, info.max, n, dtype=a, endpoint=True)
            if n == 1000:
                x[::7] = x[3]  # ties: the stable order
            emit("sort %s %d" % (a, n), text(x), text(np.sort(x)), text(np.argsort(x, kind="stable")))


print("# numpy", np.__version__, "values of the integer dtypes (gen_dtypes_table.py)")
binary_cases()
unary_cases()
cast_cases()
reduce_cases()
scalar_cases()
sort_cases()
