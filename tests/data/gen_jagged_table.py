#!/usr/bin/env python3
"""Writes jagged_table.txt: Awkward Array's answers for ListOffsetArrays (offsets + content) of
every dtype, for tests/test_jagged.cpp — ak.num(x, axis=1), ak.flatten(x), str(x.type), of the whole
array or of an event slice x[start:stop].

    build/venv/bin/pip install awkward
    build/venv/bin/python3 tests/data/gen_jagged_table.py > tests/data/jagged_table.txt

Each case is five lines after "case <label> <dtype> <offsets dtype> <start> <stop>" (start/stop:
the slice x[start:stop] whose answers follow, "none" an open bound; label "whole": no slice):
the offsets, the content (floats with float.hex, integers in decimal, bool as 0/1), ak.num,
ak.flatten and the type string.
"""
import awkward as ak
import numpy as np

rng = np.random.default_rng(20261124)
DTYPES = ["float64", "float32", "int64", "int32", "bool"]


def text(x):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def content_of(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        v = rng.normal(0, 10, n)
        v[: min(n, 3)] = [0.0, -0.0, 1.1][: min(n, 3)]
        return v.astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def layout(offsets, content, off_dtype):
    index = ak.index.Index32(offsets.astype(np.int32)) if off_dtype == "int32" else ak.index.Index64(offsets)
    return ak.Array(ak.contents.ListOffsetArray(index, ak.contents.NumpyArray(content)))


def emit(label, dtype, off_dtype, offsets, content, start="none", stop="none"):
    x = layout(offsets, content, off_dtype)
    if label != "whole":
        x = x[None if start == "none" else start : None if stop == "none" else stop]
    assert ak.validity_error(x) == ""
    print("case", label, dtype, off_dtype, start, stop)
    print(text(offsets))
    print(text(content))
    print(text(ak.num(x, axis=1)))
    print(text(ak.flatten(x, axis=1)))
    print(str(x.type))


def poisson_offsets(n, lam, first=0):
    counts = rng.poisson(lam, n)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first


print("# awkward", ak.__version__, "numpy", np.__version__, "ListOffsetArray cases (gen_jagged_table.py)")
for dtype in DTYPES:
    shapes = []
    for n in (0, 1, 7, 300):
        shapes.append(("whole", poisson_offsets(n, 2.0), 0))  # random lists, empty ones included
    shapes.append(("whole", np.zeros(6, np.int64), 0))  # all empty
    shapes.append(("whole", np.array([0, 2, 2002, 2003], np.int64), 0))  # one long list
    shapes.append(("whole", poisson_offsets(9, 3.0, first=5), 4))  # offsets from 5, unused tail
    for label, off, tail in shapes:
        content = content_of(dtype, int(off[-1]) + tail)
        emit(label, dtype, "int64", off, content)
    off = poisson_offsets(12, 2.0, first=3)
    content = content_of(dtype, int(off[-1]) + 2)
    emit("whole", dtype, "int32", off, content)
    for start, stop in ((2, 7), (0, "none"), ("none", -3), (-5, "none"), (-100, 100), (8, 3), (12, 12), (5, 6)):
        emit("slice", dtype, "int64", off, content, start, stop)
    emit("slice", dtype, "int32", off, content, 1, -1)
