#!/usr/bin/env python3
"""Writes pad_none_table.txt: Awkward Array 2.14's ak.pad_none (axis=1, clip=True and False),
ak.fill_none and ak.is_none of its result, and the per-list reducers with keepdims=True, on
ListOffsetArrays of float64, float32, int32 and bool, for tests/test_pad_none.cpp.

    build/venv/bin/python3 tests/data/gen_pad_none_table.py > tests/data/pad_none_table.txt

Lists: Poisson multiplicities with empty lists, zero lists, one list, offsets not starting at 0
with unused content before and after (a sliced view), only empty lists, one long list. Targets:
-1, 0, 1, 2 (shorter than some lists) and 2 more than the longest.

A case header is "case <kind> <dtype> <label> <args...> <lines>", then <lines> lines:
  pad <dtype> <label> <target> <fill> 15: x's offsets, x's content; clip=True: values in C order
    (None as "None", "error" where Awkward raises), str(), repr(), str(type); clip=False: the
    counts, the flattened values, str(), repr(), str(type); ak.fill_none(clip=True, fill) flattened,
    its str(); ak.fill_none(clip=False, fill) flattened; ak.is_none(clip=True, axis=1) as 0/1.
  keep <dtype> <label> <reducer> 5: x's offsets, x's content, the (n, 1) values ("None"), str(type),
    str() ("error" in all three where Awkward raises).
Floats are written with float.hex, bools as 0/1, "-" for no values. The fill value is the
content's dtype (a numpy scalar), so Awkward keeps the dtype.
"""
import awkward as ak
import numpy as np

rng = np.random.default_rng(20261128)

REDUCERS = ["sum", "prod", "mean", "var", "std", "any", "all", "count_nonzero", "min", "max", "argmin", "argmax"]
FILL = {"float64": "-1.5", "float32": "-1.5", "int32": "-7", "bool": "1"}


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


def one_line(s):
    # The test compares the line's words joined by single spaces.
    assert "\n" not in s and " ".join(s.split()) == s, s
    return s


def flat(a):
    """The values in order with their None (ak.flatten(axis=None) would drop them)."""
    out = []

    def walk(v):
        if isinstance(v, list):
            for e in v:
                walk(e)
        else:
            out.append(v)

    walk(ak.to_list(a))
    return text(out)


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


def fill_value(dtype):
    return np.dtype(dtype).type(float(FILL[dtype]) if dtype.startswith("float") else int(FILL[dtype]))


def emit_pad(dtype, label, off, content, target):
    x = make(off, content)
    assert ak.validity_error(x) == ""
    v = fill_value(dtype)
    lines = [text(off), text(content)]
    try:
        p = ak.pad_none(x, target, axis=1, clip=True)
        f = ak.fill_none(p, v)
        assert str(f.type).endswith(dtype)
        lines += [flat(p), one_line(str(p)), one_line(repr(p)), str(p.type)]
        clip_fill = [flat(f), one_line(str(f))]
        isn = flat(ak.is_none(p, axis=1))
    except (ValueError, TypeError):  # a negative target: numpy's ValueError (TypeError with zero lists)
        lines += ["error"] * 4
        clip_fill = ["error"] * 2
        isn = "error"
    q = ak.pad_none(x, target, axis=1, clip=False)
    lines += [text(ak.num(q)), flat(q), one_line(str(q)), one_line(repr(q)), str(q.type)]
    lines += clip_fill
    lines.append(flat(ak.fill_none(q, v)))
    lines.append(isn)
    print("case pad", dtype, label, target, FILL[dtype], len(lines))
    print("\n".join(lines))


def emit_keep(dtype, label, off, content, reducer):
    x = make(off, content)
    try:
        r = getattr(ak, reducer)(x, axis=-1, keepdims=True)
        lines = [flat(r), str(r.type), one_line(str(r))]
    except Exception:  # noqa: BLE001  (Awkward's TypeError / ValueError for a dtype it does not reduce)
        lines = ["error"] * 3
    lines = [text(off), text(content)] + lines
    print("case keep", dtype, label, reducer, len(lines))
    print("\n".join(lines))


print("# awkward", ak.__version__, "numpy", np.__version__, "pad_none and keepdims cases (gen_pad_none_table.py)")
for dtype in ["float64", "float32", "int32", "bool"]:
    shapes = [("zero", 0, 2.0, 0, 0), ("one", 1, 2.0, 0, 0), ("sliced", 7, 1.5, 3, 2), ("poisson", 25, 2.0, 0, 0),
              ("poisson-big", 50, 3.0, 5, 4)]
    xs = []
    for label, n, lam, first, tail in shapes:
        off = offsets_of(rng.poisson(lam, n), first)
        xs.append((label, off, content_of(dtype, int(off[-1]) + tail)))
    off = offsets_of(np.zeros(6, np.int64), 1)
    xs.append(("empty-lists", off, content_of(dtype, 2)))
    off = np.array([0, 0, 60, 60, 61], np.int64)
    xs.append(("long", off, content_of(dtype, 61)))
    for label, off, content in xs:
        longest = int(np.max(np.diff(off))) if len(off) > 1 else 0
        for target in sorted({-1, 0, 1, 2, longest + 2}):
            emit_pad(dtype, label, off, content, target)
        for reducer in REDUCERS:
            emit_keep(dtype, label, off, content, reducer)
