#!/usr/bin/env python3
"""Writes jagged_structure_table.txt: Awkward Array's structure functions on ListOffsetArrays of
every dtype, for tests/test_jagged_structure.cpp — ak.firsts, x[:, 0], x[:, -1], ak.local_index,
x[positions], x[mask], ak.concatenate([x, y], axis=1) and ak.fill_none(ak.firsts(x), 0).

    build/venv/bin/python3 tests/data/gen_jagged_structure_table.py > tests/data/jagged_structure_table.txt

Each case is "case <dtype> <label>" and 17 lines: x's offsets and content, firsts (None as
"None"), x[:, 0] and x[:, -1] ("error" where Awkward raises), local_index (flattened), the
positions, the counts and flattened values of x[positions], the mask (0/1), the counts and values
of x[mask], y's offsets and content, the counts and values of the concatenation, and
fill_none(firsts, 0). Floats are written with float.hex, bool as 0/1, "-" for no values.
"""
import awkward as ak
import numpy as np

rng = np.random.default_rng(20261126)


def text(x):
    x = list(x)
    if not x:
        return "-"
    out = []
    for e in x:
        if e is None:
            out.append("None")
        elif isinstance(e, (float, np.floating)):
            out.append(float(e).hex())
        else:
            out.append(str(int(e)))
    return " ".join(out)


def content_of(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        return rng.normal(0, 10, n).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


def make(offsets, content):
    return ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content)))


def offsets_of(counts, first=0):
    return (np.concatenate([[0], np.cumsum(counts)]) + first).astype(np.int64)


def at(x, k):
    try:
        return text(ak.to_list(x[:, k]))
    except IndexError:
        return "error"


def emit(dtype, label, off, content, yoff, ycontent):
    x, y = make(off, content), make(yoff, ycontent)
    assert ak.validity_error(x) == "" and ak.validity_error(y) == ""
    n = len(x)
    pos = rng.integers(-n, n, rng.integers(0, 2 * n + 2)) if n else np.zeros(0, np.int64)
    mask = rng.random(n) < 0.5
    firsts = ak.firsts(x)
    print("case", dtype, label)
    print(text(off))
    print(text(content))
    print(text(ak.to_list(firsts)))
    print(at(x, 0))
    print(at(x, -1))
    print(text(ak.flatten(ak.local_index(x))))
    print(text(pos))
    sel = x[pos]
    print(text(ak.num(sel)))
    print(text(ak.flatten(sel)))
    print(text(mask.astype(np.int64)))
    sel = x[mask]
    print(text(ak.num(sel)))
    print(text(ak.flatten(sel)))
    print(text(yoff))
    print(text(ycontent))
    cat = ak.concatenate([x, y], axis=1)
    print(text(ak.num(cat)))
    print(text(ak.flatten(cat)))
    print(text(ak.to_list(ak.fill_none(firsts, False if dtype == "bool" else 0))))


print("# awkward", ak.__version__, "numpy", np.__version__, "structure cases (gen_jagged_structure_table.py)")
for dtype in ["float64", "float32", "int64", "int32", "bool"]:
    for n, lam, first, tail in ((0, 2.0, 0, 0), (1, 2.0, 0, 0), (7, 1.0, 3, 2), (40, 2.0, 0, 0), (300, 2.0, 5, 4),
                                (9, 3.0, 0, 0)):
        c = rng.poisson(lam, n)
        off = offsets_of(c, first)
        content = content_of(dtype, int(off[-1]) + tail)
        yc = rng.poisson(1.5, n)
        yoff = offsets_of(yc, 2)
        emit(dtype, f"poisson-{n}", off, content, yoff, content_of(dtype, int(yoff[-1]) + 1))
    c = rng.integers(1, 5, 25)  # no empty list: x[:, 0] and x[:, -1] exist
    off = offsets_of(c)
    yoff = offsets_of(np.zeros(25, np.int64))
    emit(dtype, "nonempty", off, content_of(dtype, int(off[-1])), yoff, content_of(dtype, 0))
    off = np.array([0, 0, 1000, 1000, 1001], np.int64)  # one long list
    emit(dtype, "long", off, content_of(dtype, 1001), off, content_of(dtype, 1001))
