#!/usr/bin/env python3
"""Writes jagged_sort_table.txt: Awkward Array's ak.sort and ak.argsort along axis=-1 (ascending
and descending) of jagged arrays, for tests/test_jagged_sort.cpp.

    build/venv/bin/pip install awkward
    build/venv/bin/python3 tests/data/gen_jagged_sort_table.py > tests/data/jagged_sort_table.txt

Each case is four lines: "case <dtype> <dataset> <op>" (op: sort_asc, sort_desc, argsort_asc,
argsort_desc), the offsets (they need not start at 0), the content from offsets[0] on (the test
puts poison before it), and the result's content (floats with float.hex: exact, signs of zeros and
NaNs included; its offsets are the input's, rebased to 0). Floats hold ties, -0.0 next to +0.0 and
NaNs (Awkward puts NaN first in either direction); integers their extremes.
"""
import awkward as ak
import numpy as np

from table_text import text

rng = np.random.default_rng(20261125)


def offsets_sets():
    def poisson(n, lam, first=0):
        counts = rng.poisson(lam, n)
        counts[::9] = 0
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first
    yield "poisson", poisson(40, 3)
    yield "shifted", poisson(20, 4, first=5)  # a slice's offsets
    yield "long", np.array([0, 1, 301, 301, 305], np.int64)  # one list longer than a warp's work
    yield "all_empty", np.zeros(6, np.int64)
    yield "none", np.array([0], np.int64)


def content(dtype, n):
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype in ("float32", "float64"):
        v = (rng.integers(-12, 13, n) / 4).astype(dtype)
        special = rng.random(n)
        v[special < 0.12] = np.nan
        v[(special >= 0.12) & (special < 0.2)] = -0.0
        v[(special >= 0.2) & (special < 0.26)] = 0.0
        v[(special >= 0.26) & (special < 0.28)] = np.inf
        v[(special >= 0.28) & (special < 0.30)] = -np.inf
        return v
    info = np.iinfo(dtype)
    v = rng.integers(-6, 7, n).astype(dtype)
    special = rng.random(n)
    v[special < 0.05] = info.min
    v[(special >= 0.05) & (special < 0.1)] = info.max
    return v


def main():
    print(f"# awkward {ak.__version__} numpy {np.__version__} (gen_jagged_sort_table.py)")
    for dtype in ("float64", "float32", "int32", "int64", "bool"):
        for name, off in offsets_sets():
            first, last = int(off[0]), int(off[-1])
            values = content(dtype, last - first)
            layout = ak.contents.ListOffsetArray(
                ak.index.Index64(off - first), ak.contents.NumpyArray(values))
            x = ak.Array(layout)
            for op, f in (("sort_asc", lambda: ak.sort(x, axis=-1)),
                          ("sort_desc", lambda: ak.sort(x, axis=-1, ascending=False)),
                          ("argsort_asc", lambda: ak.argsort(x, axis=-1)),
                          ("argsort_desc", lambda: ak.argsort(x, axis=-1, ascending=False))):
                r = f()
                flat = ak.to_numpy(ak.flatten(r, axis=None)) if len(r) else np.zeros(0, values.dtype)
                assert np.array_equal(ak.num(r, axis=1), ak.num(x, axis=1))
                print(f"case {dtype} {name} {op}")
                print(text(off))
                print(text(values))
                print(text(flat))


if __name__ == "__main__":
    main()
