#!/usr/bin/env python3
"""Writes tests/data/reduction_table.txt: numpy 2's answers for jetfuse's reducers.

Every case is: the reducer, the operand (dtype, shape, values) and the call's arguments (axis,
keepdims, ddof), then numpy's result (dtype, shape, values) or the error numpy raises. Inputs are
drawn from a fixed seed and written out, so the C++ test (tests/test_reductions.cpp) reads the same
values; floats are written with float.hex so nothing is rounded on the way.

    python3 tests/data/gen_reduction_table.py > tests/data/reduction_table.txt
"""
import sys
import warnings

import numpy as np

REDUCERS = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all", "argmin", "argmax",
            "count_nonzero", "nansum", "nanprod", "nanmin", "nanmax", "nanmean"]
DTYPES = ["bool", "int32", "int64", "float32", "float64"]
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 3, 4), (4, 0), (1, 6), (5, 1)]


def values(rng, dtype, shape, with_nan):
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "bool":
        v = rng.integers(0, 2, n).astype(bool)
    elif dtype.startswith("int"):
        # small values keep products exact; a few large ones make sums wrap in int32 operands' int64
        v = rng.integers(-4, 5, n).astype(dtype)
    else:
        v = (rng.standard_normal(n) * 3).astype(dtype)
        if with_nan and n > 2:
            v[rng.integers(0, n, 2)] = np.nan
    return v.reshape(shape)


def axis_specs(ndim):
    specs = [None]
    for a in range(ndim):
        specs.append((a,))
        specs.append((a - ndim,))
    if ndim >= 2:
        specs.append((0, ndim - 1))
    if ndim >= 3:
        specs.append((1, 2))
    return specs


def fmt(dtype, v):
    if dtype == "bool":
        return "1" if v else "0"
    if dtype.startswith("int"):
        return str(int(v))
    return float(v).hex()


def call(name, x, axis, keepdims, ddof):
    f = getattr(np, name)
    ax = None if axis is None else (axis[0] if len(axis) == 1 else axis)
    kw = {}
    if name in ("var", "std"):
        kw["ddof"] = ddof
    if name == "count_nonzero":
        return f(x, axis=ax, keepdims=keepdims)
    return f(x, axis=ax, keepdims=keepdims, **kw)


def main():
    rng = np.random.default_rng(20261123)
    out = sys.stdout
    out.write("# numpy %s; written by tests/data/gen_reduction_table.py\n" % np.__version__)
    for dtype in DTYPES:
        for shape in SHAPES:
            for with_nan in ([False, True] if dtype.startswith("float") else [False]):
                x = values(rng, dtype, shape, with_nan)
                for name in REDUCERS:
                    if name.startswith("nan") and not dtype.startswith("float") and name != "nanmean":
                        pass  # numpy accepts them on integers: still worth checking
                    for axis in axis_specs(len(shape)):
                        if name in ("argmin", "argmax") and axis is not None and len(axis) > 1:
                            continue
                        for keepdims in (False, True):
                            for ddof in ([0, 1] if name in ("var", "std") else [0]):
                                ax = "none" if axis is None else ",".join(str(a) for a in axis)
                                out.write("case %s %s %s %s %d %d\n" % (
                                    name, dtype, "x".join(str(s) for s in shape) or "-", ax, int(keepdims), ddof))
                                out.write("input %s\n" % " ".join(fmt(dtype, v) for v in x.ravel()))
                                with warnings.catch_warnings():
                                    warnings.simplefilter("ignore")
                                    try:
                                        r = np.asarray(call(name, x, axis, keepdims, ddof))
                                    except Exception as e:  # noqa: BLE001 - the error is the answer
                                        out.write("error %s\n" % type(e).__name__)
                                        continue
                                rd = str(r.dtype)
                                out.write("expect %s %s %s\n" % (
                                    rd, "x".join(str(s) for s in r.shape) or "-",
                                    " ".join(fmt(rd, v) for v in r.ravel())))


if __name__ == "__main__":
    main()
