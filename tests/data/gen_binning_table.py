#!/usr/bin/env python3
"""Writes tests/data/binning_table.txt: numpy 2's numpy.histogram and numpy.bincount answers.

Adversarial inputs: values exactly on numpy's bin edges and their float neighbours (in the edges'
dtype), the range's ends, values outside, NaN and infinities, empty and one-element arrays, ranges
given (python floats) and from the data (float32 data then bins in float32), integer and bool
data; numpy's errors. Floats are written with float.hex, so nothing is rounded on the way; the C++
test (tests/test_binning.cpp) runs every case on jf::cpu and, with a GPU, on jf::cuda.

    build/venv/bin/python3 tests/data/gen_binning_table.py > tests/data/binning_table.txt

Lines:  case histogram DTYPE N BINS LO HI   (LO HI: float.hex, or "auto auto" for range=None)
        case bincount DTYPE N MINLENGTH
        input V...            then   hist C... / edges V...   or   counts C...   or   error MESSAGE
"""
import warnings

import numpy as np

rng = np.random.default_rng(20261123)
warnings.simplefilter("ignore")


def fmt(dtype, v):
    if dtype == "bool":
        return "1" if v else "0"
    if dtype.startswith("int"):
        return str(int(v))
    return float(v).hex()


def data(dtype, n, lo, hi, bins):
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.startswith("int"):
        a, b = (int(max(np.floor(lo), -1e6)) - 3, int(min(np.ceil(hi), 1e6)) + 4) if lo is not None else (-50, 50)
        return rng.integers(a, b, n).astype(dtype)
    t = np.dtype(dtype)
    l, h = (lo, hi) if lo is not None else (-2.0, 3.0)
    v = rng.normal((l + h) / 2, abs(h - l) / 3 + 1e-300 if np.isfinite(h - l) else 1.0, n).astype(t)
    if n >= 8:
        edges = np.linspace(l, h, bins + 1).astype(t)
        k = rng.integers(0, bins + 1, n // 3)
        e = edges[k]
        up, down = np.nextafter(e, t.type(np.inf)), np.nextafter(e, t.type(-np.inf))
        pick = rng.integers(0, 3, n // 3)
        v[: n // 3] = np.where(pick == 0, e, np.where(pick == 1, up, down))
        v[n // 3] = t.type(l)
        v[n // 3 + 1] = t.type(h)
        if lo is not None:  # values that only a range can leave out
            v[n // 3 + 2] = np.nan
            v[n // 3 + 3] = np.inf
            v[n // 3 + 4] = -np.inf
        v[n // 3 + 5] = -0.0
        rng.shuffle(v)
    return v


def histogram_case(dtype, n, bins, rng_):
    lo, hi = rng_ if rng_ is not None else (None, None)
    x = data(dtype, n, lo, hi, max(bins, 1))
    head = "case histogram %s %d %d %s %s" % (
        dtype, n, bins, "auto" if lo is None else float(lo).hex(), "auto" if hi is None else float(hi).hex())
    print(head)
    print("input " + " ".join(fmt(dtype, v) for v in x))
    try:
        h, e = np.histogram(x, bins, rng_)
    except ValueError as ex:
        print("error " + str(ex))
        return
    print("hist " + " ".join(str(int(c)) for c in h))
    print("edges %s %s" % (e.dtype.name, " ".join(float(v).hex() for v in e)))


def bincount_case(dtype, n, minlength, top=20, negative=False, ndim=1):
    x = rng.integers(0, top, n).astype(dtype)
    if negative and n:
        x[n // 2] = -1
    shape = (n,) if ndim == 1 else (1, n)
    print("case bincount %s %s %d" % (dtype, "x".join(map(str, shape)), minlength))
    print("input " + " ".join(fmt(dtype, v) for v in x.ravel()))
    try:
        c = np.bincount(x.reshape(shape), minlength=minlength)
    except ValueError as ex:
        print("error " + str(ex))
        return
    print("counts " + " ".join(str(int(v)) for v in c))


def main():
    print("# numpy %s; written by tests/data/gen_binning_table.py" % np.__version__)
    ranges = [(0.0, 1.0), (0.1, 0.7), (-3.0, 3.0), (-1e-3, 2.5), (2.0, 2.0), (-1e30, 1e30), None]
    for dtype in ("float64", "float32", "int32", "int64", "bool"):
        for bins in (1, 2, 3, 7, 10, 100):
            for r in ranges:
                for n in (0, 1, 7, 200):
                    if dtype == "bool" and r not in ((0.0, 1.0), None):
                        continue
                    histogram_case(dtype, n, bins, r)
    for dtype in ("float64", "float32"):
        histogram_case(dtype, 3000, 1000, (0.0, 1.0))
        histogram_case(dtype, 3000, 1000, None)
    # numpy's errors
    histogram_case("float64", 5, 0, (0.0, 1.0))
    histogram_case("float64", 5, -1, None)
    histogram_case("float64", 5, 3, (1.0, 0.0))
    histogram_case("float64", 5, 3, (0.0, float("inf")))
    histogram_case("float64", 5, 3, (float("nan"), 1.0))
    histogram_case("float64", 5, 100, (0.0, 1e-322))  # too many bins (linspace's step underflows)
    histogram_case("float32", 5, 10, (1.0, 1.0000001))  # too many bins (equal float32 edges)
    histogram_case("float64", 5, 3, (0.0, 1e-320))  # denormal width
    for dtype in ("float64", "float32"):  # a data range that is not finite
        x = np.array([1.5, np.nan, 2.0], dtype=dtype)
        for v in (x, np.array([0.5, np.inf], dtype=dtype)):
            print("case histogram %s %d 4 auto auto" % (dtype, len(v)))
            print("input " + " ".join(fmt(dtype, a) for a in v))
            try:
                np.histogram(v, 4)
                raise SystemExit("numpy accepted a non-finite data range")
            except ValueError as ex:
                print("error " + str(ex))
    # integers far apart (the width is an exact unsigned difference)
    for dtype in ("int64",):
        v = np.array([-(2**62), 2**62 - 1, 5, 2**40], dtype=dtype)
        print("case histogram %s 4 7 auto auto" % dtype)
        print("input " + " ".join(fmt(dtype, a) for a in v))
        h, e = np.histogram(v, 7)
        print("hist " + " ".join(str(int(c)) for c in h))
        print("edges %s %s" % (e.dtype.name, " ".join(float(a).hex() for a in e)))
    for dtype in ("bool", "int32", "int64"):
        for n in (0, 1, 9, 1000):
            for minlength in (0, 5, 100):
                bincount_case(dtype, n, minlength, top=2 if dtype == "bool" else 5000 if n == 1000 else 20)
    bincount_case("int64", 9, 0, negative=True)
    bincount_case("int32", 9, 0, ndim=2)


if __name__ == "__main__":
    main()
