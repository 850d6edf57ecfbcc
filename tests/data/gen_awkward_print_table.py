#!/usr/bin/env python3
"""Writes awkward_print_table.txt: how Awkward Array prints jagged lists, option arrays, lists of
records and 1-d arrays — str(x), repr(x), x.show(type=True, nbytes=True, backend=True) and the
text of its Jupyter view (_repr_mimebundle_'s HTML body, unescaped) — for tests/test_awkward_print.cpp.

    build/venv/bin/python3 tests/data/gen_awkward_print_table.py > tests/data/awkward_print_table.txt

A case is "case <kind> <label>" (kind: jagged, option, record, dense) and then lines
"<key> <words>" up to "end": "offsets" (int64), "field <dtype> <escaped name>" followed by
"values" (floats with float.hex, integers in decimal, bool as 0/1) for every content (one for
jagged, option and dense), "valid" (0/1, option only), then "type", "str", "repr", "show",
"display" with the text escaped (a backslash as \\\\, a newline as \\n).
"""
import html

import awkward as ak
import numpy as np

rng = np.random.default_rng(20261125)
SPECIAL = [1.1, 1e20, float("nan"), float("inf"), -float("inf"), -0.0, 1e-5, 123456789.0, 0.1 + 0.2, 2.5e-300, 5e-324,
           -1.0, 0.0, 1234.5678, 99999.0, 100000.0, 0.001, 0.0001]


def esc(s):
    return s.replace("\\", "\\\\").replace("\n", "\\n")


def words(x):
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def content_of(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        v = rng.normal(0, 10, n)
        k = min(n, len(SPECIAL))
        v[:k] = SPECIAL[:k]
        return v.astype(dtype)
    info = np.iinfo(dtype)
    v = rng.integers(-1000, 1000, n)
    if n >= 3:
        v[:2] = [info.min, info.max]
    return v.astype(dtype)


def offsets_of(counts, first=0):
    return (np.concatenate([[0], np.cumsum(counts)]) + first).astype(np.int64)


def emit(kind, label, x, offsets=None, fields=(), valid=None):
    print("case", kind, label)
    pattern = label.startswith("walkthrough")  # the test builds these from the walkthrough's lists
    if offsets is not None:
        print("offsets", "-" if pattern else words(offsets))
    for name, values in fields:
        print("field", str(np.asarray(values).dtype), esc(name).replace(" ", "\\s"))
        print("values", "-" if pattern else words(values))
    if valid is not None:
        print("valid", words(valid.astype(np.int64)))
    print("type", esc(str(x.type)))
    print("str", esc(str(x)))
    print("repr", esc(repr(x)))
    print("show", esc(x.show(stream=None, type=True, nbytes=True, backend=True)))
    print("display", esc(html.unescape(x._repr_mimebundle_()["text/html"]).removeprefix("<pre>").removesuffix("</pre>")))
    print("end")


def jagged(label, offsets, content):
    x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content)))
    assert ak.validity_error(x) == ""
    emit("jagged", label, x, offsets, [("", content)])


def record(label, offsets, named):
    rec = ak.contents.RecordArray([ak.contents.NumpyArray(v) for _, v in named], [k for k, _ in named])
    x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), rec))
    emit("record", label, x, offsets, named)


def option(label, values, valid):
    x = ak.Array(ak.contents.ByteMaskedArray(ak.index.Index8(valid.astype(np.int8)), ak.contents.NumpyArray(values),
                                             valid_when=True))
    emit("option", label, x, None, [("", values)], valid)


def dense(label, values):
    emit("dense", label, ak.Array(values), None, [("", values)])


print("# awkward", ak.__version__, "numpy", np.__version__, "printing cases (gen_awkward_print_table.py)")
walk = [[0, 1.1, 2.2], [], [3.3, 4.4], [5.5], [6.6, 7.7, 8.8, 9.9]]
counts = np.array([len(l) for l in walk] * 10000)
flat = np.array([v for l in walk for v in l] * 10000)
jagged("walkthrough", offsets_of(counts), flat)
jagged("walkthrough-slice", offsets_of(counts)[100:], flat)
dense("walkthrough-num", counts.astype(np.int64))
for dtype in ["float64", "float32", "int64", "int32", "bool"]:
    jagged("zero-lists", np.zeros(1, np.int64), content_of(dtype, 0))
    jagged("one-empty", np.zeros(2, np.int64), content_of(dtype, 0))
    jagged("one-element", np.array([0, 1], np.int64), content_of(dtype, 1))
    jagged("all-empty", np.zeros(30, np.int64), content_of(dtype, 0))
    jagged("special", np.array([0, len(SPECIAL)], np.int64), content_of(dtype, len(SPECIAL)))
    jagged("specials-split", offsets_of(np.ones(len(SPECIAL), np.int64)), content_of(dtype, len(SPECIAL)))
    for n, lam in ((3, 2.0), (7, 1.0), (40, 2.0), (300, 2.0), (600, 0.3)):
        c = rng.poisson(lam, n)
        jagged(f"poisson-{n}", offsets_of(c), content_of(dtype, int(c.sum())))
    jagged("one-long", np.array([0, 2, 1002, 1003], np.int64), content_of(dtype, 1003))
    jagged("long-lists", offsets_of(np.full(60, 60)), content_of(dtype, 3600))
    c = rng.poisson(3.0, 20)
    jagged("offset-start", offsets_of(c, first=7), content_of(dtype, int(c.sum()) + 10))
    for n in (0, 1, 5, 41, 500):
        valid = rng.random(n) < 0.7
        option(f"option-{n}", content_of(dtype, n), valid)
    dense("dense-60", content_of(dtype, 60))
for n, lam in ((0, 2.0), (1, 2.0), (3, 1.5), (50, 2.0), (700, 2.0)):
    c = rng.poisson(lam, n)
    m = int(c.sum())
    fields = [("pt", (rng.exponential(20, m)).astype(np.float32)), ("eta", rng.normal(0, 1.5, m).astype(np.float32)),
              ("phi", rng.uniform(-3.14, 3.14, m).astype(np.float32)),
              ("charge", rng.choice([-1, 1], m).astype(np.int32))]
    record(f"electrons-{n}", offsets_of(c), fields)
record("one-field", offsets_of([2, 0, 1]), [("x", np.array([1.5, 2.0, 3.0]))])
record("names", offsets_of([2, 1]), [("my key", np.array([1, 2, 3])), ("b", np.array([True, False, True])),
                                     ("it's", np.array([0.5, 1e20, -0.0]))])
c = rng.poisson(2.0, 12)
m = int(c.sum())
record("many-fields", offsets_of(c), [(f"f{i}", rng.integers(0, 10**i + 1, m).astype(np.int64)) for i in range(14)])
