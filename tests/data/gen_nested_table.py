#!/usr/bin/env python3
"""Writes nested_table.txt: Awkward Array's answers for nested lists (a ListOffsetArray over a
ListOffsetArray, `n * var * var * T`) for tests/test_nested.cpp — type strings, str and repr,
ak.num at axis 1 and 2, ak.flatten at axis 1 and 2, ak.ravel, element-wise expressions and the
per-inner-list reductions (axis=-1, None for an empty inner list where Awkward gives None), of the
whole array or of a slice x[start:stop].

    build/venv/bin/python3 tests/data/gen_nested_table.py > tests/data/nested_table.txt

A case is "case <label> <dtype> <start> <stop>" ("none": an open bound; label "whole": no slice)
and then lines "<key> <text>" up to "end": "outer", "inner" (offsets) and "content" (floats with
float.hex, integers in decimal, bools as 0/1; "-" for none), then the answers: "type", "str",
"repr", "num1" (words), "num2" and "num2_type" (ak.num(x, 2): its values in order, its type),
"flat1_num", "flat1_type" (ak.flatten(x, 1)), "flat2_num" (ak.num(ak.flatten(x, 2), 1)), "ravel",
"expr <name> <dtype> <words>" (element-wise: every innermost value, ravelled) and
"reduce <op> <dtype> <words>" (one word per inner list, in order, "None" for a missing value),
"reduce_type <op> <type>", "reduce_str <op> <str>".
"""
import awkward as ak
import numpy as np

from table_text import text

rng = np.random.default_rng(20261201)
DTYPES = ["float64", "float32", "int32", "bool"]
REDUCERS = ["sum", "prod", "min", "max", "argmin", "argmax", "mean", "count", "count_nonzero", "any", "all"]


def content_of(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        return (np.round(rng.normal(0, 4, n) * 4) / 4).astype(dtype)  # multiples of 1/4: exact sums
    return rng.integers(-9, 10, n).astype(dtype)


def poisson_offsets(n, lam, first=0):
    counts = rng.poisson(lam, n)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first


def nested(outer, inner, content):
    return ak.Array(
        ak.contents.ListOffsetArray(
            ak.index.Index64(outer),
            ak.contents.ListOffsetArray(ak.index.Index64(inner), ak.contents.NumpyArray(content))))


def dtype_of(r):
    t = ak.type(r).content
    while hasattr(t, "content"):
        t = t.content
    return str(t).replace("?", "")


def emit(label, dtype, outer, inner, content, start="none", stop="none"):
    x = nested(outer, inner, content)
    if label != "whole":
        x = x[None if start == "none" else start : None if stop == "none" else stop]
    assert ak.validity_error(x) == ""
    print("case", label, dtype, start, stop)
    print("outer", text(outer))
    print("inner", text(inner))
    print("content", text(content))
    print("type", str(x.type))
    print("str", str(x))
    print("repr", repr(x))
    print("num1", text(ak.num(x, axis=1)))
    n2 = ak.num(x, axis=2)
    print("num2", text(ak.flatten(n2, axis=1)))
    print("num2_type", str(n2.type))
    f1 = ak.flatten(x, axis=1)
    print("flat1_num", text(ak.num(f1, axis=1)))
    print("flat1_type", str(f1.type))
    f2 = ak.flatten(x, axis=2)
    print("flat2_num", text(ak.num(f2, axis=1)))
    print("flat2_type", str(f2.type))
    print("ravel", text(ak.ravel(x)))
    if dtype != "bool":
        for name, y in (("mul_add", x * 2 + 1), ("centered", x - ak.mean(x, axis=-1))):
            print("expr", name, dtype_of(y), text(ak.ravel(y)))
            assert ak.all(ak.num(y, axis=2) == n2)
    for op in REDUCERS:
        if dtype == "bool" and op in ("prod", "mean"):
            continue
        r = getattr(ak, op)(x, axis=-1)
        assert ak.all(ak.num(r, axis=1) == ak.num(x, axis=1))
        vals = ak.to_list(ak.flatten(r, axis=1))
        dt = dtype_of(r)
        w = ["None" if v is None else text(np.asarray([v], dtype=dt)) for v in vals]
        print("reduce", op, dt, " ".join(w) if w else "-")
        print("reduce_type", op, str(r.type))
        print("reduce_str", op, str(r))
    print("end")


def datasets():
    yield "walkthrough", np.array([0, 3, 3, 4, 7]), np.array([0, 3, 3, 5, 6, 8, 10, 10]), 0
    yield "zero", np.array([0]), np.array([0]), 0
    yield "one-empty", np.array([0, 0]), np.array([0]), 0
    yield "only-empty-inner", np.array([0, 2, 3]), np.array([0, 0, 0, 0]), 0
    yield "random", np.concatenate([[0], np.cumsum(rng.poisson(2.0, 40))]), poisson_offsets(200, 2.0), 0
    # Offsets not from 0: outer from 2 (two unused inner lists before, one after), inner from 3.
    inner = poisson_offsets(12, 2.5, first=3)
    yield "offset", np.array([2, 4, 4, 8, 11]), inner, 2
    # A long inner list (the printer's elision inside an inner list) and many outer lists.
    inner = np.concatenate([[0, 60], 60 + np.cumsum(rng.poisson(1.5, 400))])
    yield "long", np.concatenate([[0, 1], 1 + np.cumsum(rng.poisson(2.0, 150))]), inner, 0


print("# awkward", ak.__version__, "numpy", np.__version__, "nested list cases (gen_nested_table.py)")
for dtype in DTYPES:
    for label, outer, inner, tail in datasets():
        outer = np.asarray(outer, np.int64)
        ninner = int(outer[-1])
        if label in ("random", "long"):  # exactly the inner lists the outer ones use
            inner = inner[: ninner + 1]
        inner = np.asarray(inner, np.int64)
        assert len(inner) >= ninner + 1
        content = content_of(dtype, int(inner[-1]) + tail)
        if label == "walkthrough":
            content = (np.arange(10) * 1.1).astype(dtype) if dtype != "bool" else np.arange(10) % 3 == 0
        emit("whole", dtype, outer, inner, content)
        if label in ("walkthrough", "offset", "random"):
            for start, stop in ((1, 3), (-2, "none"), (2, 2)):
                emit("slice", dtype, outer, inner, content, start, stop)

# Lists nested three deep (structure, type and printing only).
deep = ak.Array([[[[1.0, 2.0]], []], [], [[[3.0], [], [4.5, 5.0]]]])
print("case depth3 float64 none none")
print("type", str(deep.type))
print("str", str(deep))
print("repr", repr(deep))
print("end")
