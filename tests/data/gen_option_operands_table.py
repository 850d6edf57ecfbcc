#!/usr/bin/env python3
"""Writes option_operands_table.txt: Awkward Array 2.14's element-wise operations on option-type
arrays (per-list max / min / argmax of ListOffsetArrays, None for empty lists) with scalars, dense
numpy arrays and other option arrays, for tests/test_option_operands.cpp.

    build/venv/bin/python3 tests/data/gen_option_operands_table.py > tests/data/option_operands_table.txt

A case is "case <label> <dtype>" followed by its inputs, "x_offsets", "x_content", "y_offsets",
"y_content" (two jagged arrays of the same number of lists, empty lists in different places) and
"d" (a dense array, one value per list), then per operation three lines: "op <name> <values>"
(C order, None as "None"), "type <str(type)>" and "str <str(array)>". Floats are written with
float.hex, bools as 0/1, "-" for no values.
"""
import awkward as ak
import numpy as np

from table_text import awkward_result_text, text

rng = np.random.default_rng(20261128)


def one_line(s):
    assert "\n" not in s and " ".join(s.split()) == s, s
    return s


def lists(n, dtype, empty_every):
    counts = rng.poisson(2.0, n)
    counts[::empty_every] = 0
    offsets = np.concatenate([[0], np.cumsum(counts)])
    if dtype == "int32":
        content = rng.integers(-50, 50, offsets[-1]).astype(np.int32)
    else:
        content = rng.uniform(0.25, 9.0, offsets[-1]).astype(dtype)
    return offsets, content


def ops(x, y, d):
    """(name, Awkward result) in the order the C++ test evaluates them."""
    best, worst, other = ak.max(x, -1), ak.min(x, -1), ak.max(y, -1)
    return [
        ("best_times_2_plus_1", best * 2 + 1),
        ("best_greater", best > 3),
        ("sqrt_best", np.sqrt(abs(best))),
        ("best_minus_dense", best - d),
        ("best_plus_other", best + other),
        ("best_times_worst", best * worst),
        ("argmax_plus_1", ak.argmax(x, -1) + 1),
        ("lazy_max_plus_other", ak.max(x * 2, -1) + other),
        ("dense_over_best", d / (best + 100)),
    ]


def main():
    print("# Written by tests/data/gen_option_operands_table.py with awkward %s, numpy %s." % (ak.__version__,
                                                                                            np.__version__))
    for label, n in (("small", 7), ("medium", 40), ("one", 1), ("none", 0)):
        for dtype in ("float64", "float32", "int32"):
            xo, xc = lists(n, dtype, 3)
            yo, yc = lists(n, dtype, 2)
            d = (np.arange(n) % 5 + 1).astype(dtype)
            x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(xo), ak.contents.NumpyArray(xc)))
            y = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(yo), ak.contents.NumpyArray(yc)))
            print("case %s %s" % (label, dtype))
            print("x_offsets " + text(xo))
            print("x_content " + text(xc))
            print("y_offsets " + text(yo))
            print("y_content " + text(yc))
            print("d " + text(d))
            for name, r in ops(x, y, d):
                print("op %s %s" % (name, awkward_result_text(r)[0]))
                print("type " + one_line(str(r.type)))
                print("str " + one_line(" ".join(str(r).split())))


if __name__ == "__main__":
    main()
