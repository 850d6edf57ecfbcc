#!/usr/bin/env python3
"""Writes searchsorted_table.txt: numpy's searchsorted on sorted arrays with duplicates, NaN, +-inf
and mixed dtypes, both sides, for tests/test_searchsorted.cpp.

    python3 tests/data/gen_searchsorted_table.py > tests/data/searchsorted_table.txt

Each case is four lines: "case <dtype a> <dtype v> <side> <len a> <len v>", a's values, v's values
(float64 with float.hex, integers in decimal, bool as 0/1), numpy's indices.
"""
import numpy as np

rng = np.random.default_rng(2026)


def text(x):
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def sorted_array(dtype, n):
    if dtype.startswith("float"):
        base = np.concatenate([[np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, 1.5], rng.normal(0, 10, n)])[:n]
        a = np.sort(base.astype(dtype))  # numpy's order: NaN last
    elif dtype == "bool":
        a = np.sort(rng.random(n) < 0.5)
    else:
        a = np.sort(rng.integers(-50, 50, n).astype(dtype))
    return a


def values(dtype, n, a):
    if dtype.startswith("float"):
        v = rng.normal(0, 12, n)
        v[: min(n, 6)] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5][: min(n, 6)]
        if len(a):
            pick = rng.integers(0, len(a), n)
            v = np.where(rng.random(n) < 0.3, a[pick].astype("float64"), v)
        return v.astype(dtype)
    if dtype == "bool":
        return rng.random(n) < 0.5
    v = rng.integers(-60, 60, n)
    if dtype == "int64":
        v[: min(n, 2)] = [2**40, -(2**40)][: min(n, 2)]
    return v.astype(dtype)


print("# numpy", np.__version__, "searchsorted cases (gen_searchsorted_table.py)")
pairs = [("float64", "float64"), ("float32", "float32"), ("float32", "float64"), ("int64", "int64"),
         ("int32", "int64"), ("int64", "float64"), ("int32", "int32"), ("bool", "bool"), ("float64", "int32")]
for da, dv in pairs:
    for n in (0, 1, 7, 300):
        a = sorted_array(da, n)
        v = values(dv, 40, a)
        for side in ("left", "right"):
            r = np.searchsorted(a, v, side=side)
            print("case", da, dv, side, len(a), len(v))
            print(text(a))
            print(text(v))
            print(" ".join(str(int(e)) for e in r))
