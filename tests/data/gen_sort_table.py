#!/usr/bin/env python3
"""Writes sort_table.txt: numpy's sort, argsort (kind='stable'), unique and numpy 2's
unique_counts, unique_inverse, unique_all on every dtype, with NaN (both signs), +-0.0, +-inf,
denormals, the integer limits and many duplicates; 0-d, empty, odd and larger-than-a-block shapes
of 1 to 3 dimensions; every axis, axis=None, and the out-of-range axes (numpy's AxisError), for
tests/test_sort.cpp.

    python3 tests/data/gen_sort_table.py > tests/data/sort_table.txt

Each case is seven lines: "case <op> <dtype> <shape> <axis>" (shape: comma-separated extents or
"scalar"; axis: an integer or "none"), then the input's elements in C order (floats with float.hex,
"-nan" for a NaN with the sign bit set; integers in decimal; bools as 0/1), then "ok" or
"error <numpy exception> <message>", then up to four results, each "<shape> <elements>" (sort:
the sorted values; argsort: the indices; unique: the values; unique_counts: values, counts;
unique_inverse: values, inverse_indices; unique_all: values, indices, inverse_indices, counts),
missing results as empty lines.
"""
import math

import numpy as np

rng = np.random.default_rng(2027)


def word(e, kind):
    if kind == "f":
        v = float(e)
        if math.isnan(v):
            return "-nan" if math.copysign(1.0, v) < 0 else "nan"
        return v.hex()
    if kind == "b":
        return str(int(bool(e)))
    return str(int(e))


def text(x):
    x = np.asarray(x)
    return " ".join(word(e, x.dtype.kind) for e in x.reshape(-1))


def shape_text(shape):
    return ",".join(str(s) for s in shape) if len(shape) else "scalar"


def data(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        special = np.array([info.min, info.max, 0, -1, 1, info.min + 1, info.max - 1], dtype=dtype)
        x = rng.integers(-4, 5, n).astype(dtype)  # many duplicates
        pick = rng.random(n) < 0.3
        x[pick] = special[rng.integers(0, len(special), int(pick.sum()))]
        return x.reshape(shape)
    info = np.finfo(dtype)
    tiny = np.array(info.smallest_subnormal, dtype=dtype)
    special = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, 3 * tiny, info.max, -info.max,
                        info.tiny, 1.5, -1.5], dtype=dtype)
    special[1] = -np.abs(special[1])  # a NaN with the sign bit set (np.nan's sign is not specified)
    x = (rng.integers(-6, 7, n) / 4).astype(dtype)  # many duplicates
    pick = rng.random(n) < 0.35
    x[pick] = special[rng.integers(0, len(special), int(pick.sum()))]
    return x.reshape(shape)


def run(f):
    try:
        return "ok", f()
    except Exception as e:  # noqa: BLE001 - numpy's exception is the expected answer
        return f"error {type(e).__name__} {e}", []


def emit(op, dtype, x, axis, status, results):
    print("case", op, dtype, shape_text(x.shape), "none" if axis is None else axis)
    print(text(x))
    print(status)
    for k in range(4):
        if k < len(results):
            r = np.asarray(results[k])
            print(shape_text(r.shape), text(r))
        else:
            print()


SHAPES = [(), (0,), (1,), (2,), (7,), (33,), (300,), (3, 0), (0, 4), (4, 5), (5, 1), (1, 6), (12, 30), (2, 3, 4),
          (3, 1, 5), (4, 0, 2)]
LARGE = {(300,), (12, 30)}

print("# numpy", np.__version__, "sort/argsort/unique cases (gen_sort_table.py)")
for dtype in ("bool", "int32", "int64", "float32", "float64"):
    for shape in SHAPES:
        x = data(dtype, shape)
        nd = len(shape)
        axes = [None] + list(range(-nd - 1, nd + 1)) if nd else [None, -1, 0, 1]
        for axis in axes:
            if shape in LARGE and axis not in (None, -1, 0):
                continue
            emit("sort", dtype, x, axis, *run(lambda: [np.sort(x, axis=axis, kind="stable")]))
            emit("argsort", dtype, x, axis, *run(lambda: [np.argsort(x, axis=axis, kind="stable")]))
        emit("unique", dtype, x, None, *run(lambda: [np.unique(x)]))
        emit("unique_counts", dtype, x, None, *run(lambda: list(np.unique_counts(x))))
        emit("unique_inverse", dtype, x, None, *run(lambda: list(np.unique_inverse(x))))
        emit("unique_all", dtype, x, None, *run(lambda: list(np.unique_all(x))))
