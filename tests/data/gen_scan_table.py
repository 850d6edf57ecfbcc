#!/usr/bin/env python3
"""Writes scan_table.txt: numpy's cumsum and cumprod for every dtype jetfuse has, 0-d to 3-d shapes
(empty and size-1 axes included), axis None / 0 / 1 / 2 / -1 / -2 / out of range, int32 sums that
leave int32 (numpy accumulates them in int64), int64 products that wrap, NaN, +-inf and -0.0, for
tests/test_scan.cpp.

    python3 tests/data/gen_scan_table.py > tests/data/scan_table.txt

Each case is four lines: "case <function> <dtype> <shape> <axis>" (shape as 2x3, "scalar" for 0-d;
axis "None" or an integer), the operand's values in C order, then either "ok <result dtype> <result
shape>" and the result's values, or "error <numpy's exception>" and its message. Floats are written
with float.hex (float32 values exactly), integers in decimal, bools as 0/1.
"""
import numpy as np

rng = np.random.default_rng(2026)


def text(x):
    x = np.asarray(x).ravel()
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def shape_text(s):
    return "x".join(str(e) for e in s) if len(s) else "scalar"


def values(dtype, shape, special):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.6).reshape(shape)
    if dtype in ("int32", "int64"):
        v = rng.integers(-9, 10, n).astype(dtype)
        if special == "wide" and n:  # int32 sums beyond int32; int64 products that wrap
            v = (rng.integers(2**30, 2**31 - 1, n) if dtype == "int32" else rng.integers(2**20, 2**40, n)).astype(dtype)
        return v.reshape(shape)
    v = np.round(rng.normal(0, 4, n), 3).astype(dtype)
    if special == "nan" and n:
        for k, e in enumerate([np.nan, np.inf, -np.inf, -0.0, 0.0][: n]):
            v[(3 * k + 1) % n] = e
    if special == "zero" and n:
        v[:] = -0.0
    return v.reshape(shape)


print("# numpy", np.__version__, "cumsum / cumprod cases (gen_scan_table.py)")
shapes = [(), (0,), (1,), (7,), (40,), (2, 3), (3, 1), (1, 4), (0, 3), (3, 5), (2, 0, 3), (2, 3, 4), (1, 3, 1)]
axes = [None, 0, 1, 2, -1, -2, -3, 3]
for fn in ("cumsum", "cumprod"):
    for dtype in ("bool", "int32", "int64", "float32", "float64"):
        for shape in shapes:
            for special in ("", "wide", "nan", "zero"):
                if special == "wide" and dtype not in ("int32", "int64"):
                    continue
                if special in ("nan", "zero") and not dtype.startswith("float"):
                    continue
                if special and shape not in [(7,), (40,), (3, 5), (2, 3, 4)]:
                    continue
                x = values(dtype, shape, special)
                for axis in axes:
                    print("case", fn, dtype, shape_text(shape), axis)
                    print(text(x))
                    try:
                        with np.errstate(all="ignore"):
                            r = getattr(np, fn)(x, axis=axis)
                    except Exception as e:  # noqa: BLE001 - numpy's errors are part of the table
                        print("error", type(e).__name__)
                        print(str(e))
                        continue
                    print("ok", r.dtype, shape_text(r.shape))
                    print(text(r))
