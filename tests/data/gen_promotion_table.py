#!/usr/bin/env python3
"""Writes promotion_table.csv: numpy 2's result dtypes (NEP 50) for the dtypes jetfuse has.

Rows (kind,op,a,b,result,note):
  pair  add  A B   np.result_type(A, B)
  weak  add  A K   dtype of (np.zeros(1, A) + k) for a Python scalar k of kind K (bool/int/float)
  op    OP   A B   dtype of np.OP(x, y) for arrays x of A, y of B (B is '-' for unary ops);
                   for where: np.where(cond, x, y) with a bool condition
note: ''        jetfuse gives the same dtype
      'float16' numpy gives float16 (float functions of bool, int8, uint8): jetfuse computes in
                float32, which it gives instead (jetfuse has no float16)
      'error'   numpy has no loop for these dtypes: jetfuse rejects it at compile time

Run: python3 tests/data/gen_promotion_table.py  (writes next to this script)
"""
import csv
import os
import warnings

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
          "float64"]
SCALARS = {"bool": True, "int": 1, "float": 1.0}
UNARY = ["negative", "absolute", "sqrt", "exp", "floor", "square", "reciprocal", "sign", "isnan",
         "logical_not", "invert"]
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "arctan2", "minimum", "fmax", "less", "equal", "logical_and", "logical_or", "bitwise_and",
          "left_shift", "right_shift"]


def sample(dt):
    return np.ones(3, dtype=dt)


def result_of(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(*args)
    except TypeError:  # numpy's UFuncNoLoopError is a TypeError
        return "error"
    return str(r.dtype)


def classify(res):
    if res == "float16":
        return "float32", "float16"
    if res == "error":
        return "-", "error"
    if res not in DTYPES:
        raise SystemExit("unexpected numpy result dtype " + res)
    return res, ""


def main():
    rows = []
    for a in DTYPES:
        for b in DTYPES:
            rows.append(("pair", "add", a, b, str(np.result_type(np.dtype(a), np.dtype(b))), ""))
    for a in DTYPES:
        for k, v in SCALARS.items():
            rows.append(("weak", "add", a, k) + classify(result_of(lambda x: x + v, sample(a))))
    for op in UNARY:
        f = getattr(np, op)
        for a in DTYPES:
            rows.append(("op", op, a, "-") + classify(result_of(f, sample(a))))
    for op in BINARY:
        f = getattr(np, op)
        for a in DTYPES:
            for b in DTYPES:
                rows.append(("op", op, a, b) + classify(result_of(f, sample(a), sample(b))))
    cond = np.array([True, False, True])
    for a in DTYPES:
        for b in DTYPES:
            rows.append(("op", "where", a, b) + classify(result_of(np.where, cond, sample(a), sample(b))))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "promotion_table.csv")
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["kind", "op", "a", "b", "result", "note"])
        w.writerows(rows)
    print("wrote %d rows to %s (numpy %s)" % (len(rows), out, np.__version__))


if __name__ == "__main__":
    main()
