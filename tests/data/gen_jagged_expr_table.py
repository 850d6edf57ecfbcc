#!/usr/bin/env python3
"""Writes jagged_expr_table.txt: Awkward Array's answers for expressions over jagged arrays, for
tests/test_jagged_expr.cpp — element-wise operations (a per-list value `met` broadcast onto its
list), per-list reductions with axis=-1 (None for empty lists where Awkward gives None), and a
reduction over every element.

    build/venv/bin/pip install awkward
    build/venv/bin/python3 tests/data/gen_jagged_expr_table.py > tests/data/jagged_expr_table.txt

Each case is seven lines: "case <dataset> <dtype> <op>", the offsets (they need not start at 0),
the content, met (float64, one per list), the result's list lengths ("-" unless the result is
jagged), the result's values (flat; "None" for a missing value; floats as Python's repr, which round-trips
exactly), and the
result's dtype. Contents are multiples of 1/4 (floats) or small integers, so sums are exact in any
order; the test compares other float results within a few ulps.
"""
import awkward as ak
import numpy as np

rng = np.random.default_rng(20261124)


def value_text(v):
    if v is None:
        return "None"
    if isinstance(v, (bool, np.bool_)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))  # round-trips exactly (float32 values too, read as double then cast)
    return str(int(v))


def values_text(vals):
    return " ".join(value_text(v) for v in vals) if len(vals) else "-"


def content_of(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.5
    if dtype.startswith("float"):
        return (rng.integers(-40, 41, n) / 4).astype(dtype)
    return rng.integers(-100, 101, n).astype(dtype)


def datasets():
    def poisson(n, first=0):
        counts = rng.poisson(2, n)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first
    yield "poisson", poisson(40)
    yield "shifted", poisson(25, first=5)  # offsets starting at 5 (a slice's)
    yield "all_empty", np.zeros(11, np.int64)
    yield "one", np.array([0, 3], np.int64)
    yield "none", np.array([0], np.int64)
    yield "long", np.array([0, 2, 20002, 20002, 20005], np.int64)  # a list longer than a CPU chunk


ELEMENTWISE = {
    "mul_add": lambda x, met: x * 2 + 1,
    "add_met": lambda x, met: x + met,
    "centered": lambda x, met: x - ak.mean(x, axis=-1),
    "sqrt_expr": lambda x, met: np.sqrt(x * x * 2 + met * met),
}
REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "count_nonzero", "any", "all", "var", "std"]
COMPOSED = {
    "max_expr": lambda x, met: ak.max(np.sqrt(x * x * 2 + met * met) - 1, axis=-1),
    "sum_all": lambda x, met: ak.sum(x, axis=None),
}


def emit(name, dtype, op, offsets, content, met, result):
    print("case", name, dtype, op)
    print(" ".join(str(int(v)) for v in offsets))
    print(values_text(content.tolist()))
    print(values_text(met.tolist()))
    if isinstance(result, ak.Array) and result.ndim == 2:
        print(values_text(ak.num(result, axis=1).tolist()))
        flat = ak.flatten(result, axis=1)
        print(values_text(flat.tolist()))
        print(str(ak.type(flat).content).lstrip("?"))
    elif isinstance(result, ak.Array):
        print("-")
        print(values_text(result.tolist()))
        print(str(result.type.content).lstrip("?"))
    else:
        print("-")
        print(value_text(result))
        print(np.asarray(result).dtype.name)


print(f"# awkward {ak.__version__} numpy {np.__version__} (gen_jagged_expr_table.py)")
for name, offsets in datasets():
    n = len(offsets) - 1
    met = (np.arange(n) * 0.5 - 3).astype(np.float64)
    for dtype in ["float64", "float32", "int64", "int32", "bool"]:
        if name == "long" and dtype not in ("float64", "int32"):
            continue
        content = content_of(dtype, int(offsets[-1]))
        x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content)))
        numeric = dtype != "bool"
        long_ops = ("sum", "max", "argmax", "mean")  # keep the table small
        if numeric:
            for op, f in ELEMENTWISE.items():
                if name == "long" and op not in long_ops:
                    continue
                emit(name, dtype, op, offsets, content, met, f(x, met))
        for op in REDUCTIONS:
            if not numeric and op not in ("sum", "count_nonzero", "any", "all", "min", "max", "argmin", "argmax"):
                continue
            if name == "long" and op not in long_ops:
                continue
            emit(name, dtype, op, offsets, content, met, getattr(ak, op)(x, axis=-1))
        if numeric:
            for op, f in COMPOSED.items():
                if name == "long":
                    continue
                emit(name, dtype, op, offsets, content, met, f(x, met))


# argmin/argmax of x[mask] (appended: the cases above keep their random stream): the position among
# the selected elements, None where none is selected. Masks x > 0 and x != 1 (NaN != 1 selects NaN).
# Values in a few steps, so ties are frequent (Awkward and numpy: the first best). With NaN,
# numpy's rule (the first NaN; Awkward 2.14's argmax skips NaN): np.argmax of each selected list.
MASKED = {
    "argmax_gt0": (lambda x: x > 0, ak.argmax, np.argmax),
    "argmin_gt0": (lambda x: x > 0, ak.argmin, np.argmin),
    "argmax_ne1": (lambda x: x != 1, ak.argmax, np.argmax),
    "argmin_ne1": (lambda x: x != 1, ak.argmin, np.argmin),
}


def masked_datasets():
    counts = rng.poisson(3, 50)
    counts[[3, 17]] = 0  # empty lists
    yield "masked", np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), False
    yield "masked_shifted", np.concatenate([[0], np.cumsum(rng.poisson(4, 20))]).astype(np.int64) + 3, False
    yield "masked_long", np.array([0, 2, 20002, 20002, 20005], np.int64), False
    yield "masked_nan", np.concatenate([[0], np.cumsum(rng.poisson(4, 30))]).astype(np.int64), True


def per_list_numpy(npf, off, content, mask):
    out = []
    for k in range(len(off) - 1):
        seg = content[off[k]:off[k + 1]]
        sel = seg[mask[off[k]:off[k + 1]]]
        out.append(int(npf(sel)) if len(sel) else None)
    return ak.Array(out) if out else ak.Array(np.zeros(0, np.int64))


for name, offsets, with_nan in masked_datasets():
    n = len(offsets) - 1
    met = (np.arange(n) * 0.5 - 3).astype(np.float64)
    for dtype in ["float64", "float32", "int64", "int32"]:
        if (with_nan and not dtype.startswith("float")) or (name == "masked_long" and dtype != "float64"):
            continue
        size = int(offsets[-1])
        content = (rng.integers(-3, 4, size) / 2).astype(dtype) if dtype.startswith("float") else rng.integers(-3, 4, size).astype(dtype)
        if with_nan:
            content[rng.random(size) < 0.15] = np.nan
        x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content)))
        for op, (mask_of, akf, npf) in MASKED.items():
            if name == "masked_long" and op not in ("argmax_gt0", "argmin_ne1"):  # keep the table small
                continue
            if with_nan:
                result = per_list_numpy(npf, offsets, content, np.asarray(mask_of(content)))
            else:
                result = akf(x[mask_of(x)], axis=-1)
            emit(name, dtype, op, offsets, content, met, result)


# Reductions across the lists (axis=0, and -2 for these two-level arrays), appended: the cases above
# keep their random stream. Result j combines element j of every list longer than j; min, max,
# argmin, argmax are ?T (never None: the result is as long as the longest list); argmin/argmax give
# the list's position. Contents are ±2**k / 4 (k = 0..3) or small integers, so sums and products
# are exact in any order (jetfuse's order differs from Awkward's sequential one; design.md).
ACROSS = ["sum", "prod", "min", "max", "argmin", "argmax", "count", "count_nonzero", "any", "all", "mean", "var", "std"]
ACROSS_BOOL = ["sum", "min", "max", "argmin", "argmax", "count", "count_nonzero", "any", "all"]


def across_datasets():
    def poisson(n, lam, first=0):
        counts = rng.poisson(lam, n)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first
    yield "across", poisson(40, 2.5)
    yield "across_shifted", poisson(23, 3, first=4)  # offsets starting at 4 (a slice's)
    wide = rng.poisson(1.5, 30)
    wide[7] = 37  # one list longer than a GPU lane's 16 elements
    yield "across_wide", np.concatenate([[0], np.cumsum(wide)]).astype(np.int64)
    yield "across_all_empty", np.zeros(6, np.int64)
    yield "across_one", np.array([0, 5], np.int64)
    yield "across_none", np.array([0], np.int64)


def across_content(dtype, n):
    if dtype == "bool":
        return rng.random(n) < 0.6
    if dtype.startswith("float"):
        return (rng.choice([-1, 1], n) * 2.0 ** rng.integers(0, 4, n) / 4).astype(dtype)
    return rng.integers(-20, 21, n).astype(dtype)


for name, offsets in across_datasets():
    n = len(offsets) - 1
    met = (np.arange(n) * 0.5 - 3).astype(np.float64)
    for dtype in ["float64", "float32", "int64", "int32", "bool"]:
        content = across_content(dtype, int(offsets[-1]))
        x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content)))
        for op in ACROSS if dtype != "bool" else ACROSS_BOOL:
            emit(name, dtype, op + "_axis0", offsets, content, met, getattr(ak, op)(x, axis=0))
        if dtype != "bool":
            emit(name, dtype, "sum_axism2", offsets, content, met, ak.sum(x, axis=-2))
            emit(name, dtype, "max_expr_axis0", offsets, content, met, ak.max(x * 2 + met, axis=0))
            emit(name, dtype, "sum_selected_axis0", offsets, content, met, ak.sum(x[x > 0], axis=0))
            emit(name, dtype, "argmax_selected_axis0", offsets, content, met, ak.argmax(x[x > 0], axis=0))
