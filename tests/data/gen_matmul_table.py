#!/usr/bin/env python3
"""Writes matmul_table.txt: numpy's matmul over 1-d, 2-d, batched, broadcast and empty shapes and
dtype pairs (integers that wrap around included), and numpy's errors, for tests/test_matmul.cpp.

    python3 tests/data/gen_matmul_table.py > tests/data/matmul_table.txt
    python3 tests/data/gen_matmul_table.py dot > tests/data/dot_table.txt

With "dot": the same format for numpy.dot (2-d, 1-d, N-d operands by dot's rule, empty) and its
"not aligned" errors (dot_table.txt).

A product is "case <dtype a> <dtype b> <result dtype> <ndim a> <shape a> <ndim b> <shape b>
<ndim r> <shape r>" and three lines: a's, b's and numpy's result values in C order (floats with
float.hex, integers in decimal, bool as 0/1). An error is "case error <ndim a> <shape a> <ndim b>
<shape b> <exception>", a line "-", a line "-" and a line with numpy's message.
"""
import sys

import numpy as np

rng = np.random.default_rng(2015)


def text(x):
    x = np.asarray(x).reshape(-1)
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def values(dtype, shape):
    if dtype.startswith("float"):
        return rng.normal(0, 1, shape).astype(dtype)
    if dtype == "bool":
        return rng.random(shape) < 0.4
    big = 2**20 if dtype == "int32" else 2**40  # products wrap around in the dtype
    v = rng.integers(-9, 10, shape)
    v.reshape(-1)[:2] = [big, -big - 3][: v.size]
    return v.astype(dtype)


def dims(shape):
    return f"{len(shape)} " + " ".join(str(e) for e in shape)


shapes = [((3,), (3,)), ((0,), (0,)), ((4,), (4, 5)), ((4, 5), (5,)), ((2, 3), (3, 4)), ((1, 1), (1, 1)),
          ((3, 0), (0, 2)), ((0, 3), (3, 2)), ((3, 4), (4, 0)), ((2, 3, 4), (4, 5)), ((4, 5), (2, 5, 3)),
          ((2, 1, 3, 4), (5, 4, 2)), ((3, 2, 4), (4,)), ((5,), (3, 5, 2)), ((1, 3, 4), (2, 4, 3)),
          ((2, 0, 3), (3, 2)), ((2, 3, 0), (2, 0, 4)), ((17, 33), (33, 9)), ((1,), (1, 7))]
pairs = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("int32", "int32"),
         ("int64", "int64"), ("int32", "int64"), ("bool", "bool"), ("bool", "int32"), ("int32", "float32"),
         ("int64", "float64"), ("bool", "float64")]

if sys.argv[1:] == ["dot"]:
    rng = np.random.default_rng(1502)
    shapes = [((3,), (3,)), ((0,), (0,)), ((4,), (4, 5)), ((4, 5), (5,)), ((2, 3), (3, 4)), ((1, 1), (1, 1)),
              ((2, 3, 4), (4, 5)), ((4, 5), (2, 5, 3)), ((2, 3, 4), (5, 4, 2)), ((3, 2, 4), (4,)), ((5,), (3, 5, 2)),
              ((2, 0, 3), (3, 2)), ((2, 3, 0), (2, 0, 4)), ((1, 3), (2, 3, 1)), ((17, 33), (33, 9)),
              ((3, 0), (0, 2))]
    pairs = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("int32", "int32"),
             ("int64", "int32"), ("bool", "bool"), ("int32", "float32")]
    print("# numpy", np.__version__, "dot cases (gen_matmul_table.py dot)")
    for ta, tb in pairs:
        for sa, sb in shapes:
            a, b = values(ta, sa), values(tb, sb)
            with np.errstate(all="ignore"):
                r = np.asarray(np.dot(a, b))
            print(f"case {ta} {tb} {r.dtype} {dims(sa)} {dims(sb)} {dims(r.shape)}")
            print(text(a))
            print(text(b))
            print(text(r))
    for sa, sb in [((2, 3), (2, 3)), ((3,), (4,)), ((2, 3, 4), (3, 5)), ((4,), (3, 5, 2)), ((2, 5), (4,))]:
        try:
            np.dot(np.ones(sa), np.ones(sb))
            raise SystemExit(f"no error for dot {sa} {sb}")
        except ValueError as e:
            print(f"case error {dims(sa)} {dims(sb)}")
            print("-")
            print("-")
            print(e)
    sys.exit(0)

print("# numpy", np.__version__, "matmul cases (gen_matmul_table.py)")
for ta, tb in pairs:
    for sa, sb in shapes:
        a, b = values(ta, sa), values(tb, sb)
        with np.errstate(all="ignore"):
            r = np.asarray(np.matmul(a, b))
        print(f"case {ta} {tb} {r.dtype} {dims(sa)} {dims(sb)} {dims(r.shape)}")
        print(text(a))
        print(text(b))
        print(text(r))

errors = [((), (2,)), ((2,), ()), ((), ()), ((2, 3), (2,)), ((3,), (4,)), ((2, 3), (2, 3)), ((2, 2, 3), (3, 3, 2)),
          ((4, 2, 3), (2, 3, 5)), ((2, 5, 3), (3, 4, 3, 2))]
for sa, sb in errors:
    try:
        np.matmul(np.ones(sa), np.ones(sb))
        raise SystemExit(f"no error for {sa} @ {sb}")
    except ValueError as e:
        print(f"case error {dims(sa)} {dims(sb)}")
        print("-")
        print("-")
        print(e)
