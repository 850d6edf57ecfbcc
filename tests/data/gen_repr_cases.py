#!/usr/bin/env python3
"""Generates repr_cases.txt: numpy's repr of many arrays, with the dtype always shown.

numpy omits `dtype=` for float64/int64/bool; jetfuse always shows it. We make numpy do the same by
patching its dtype_is_implied() to False, so everything else (layout, line wrapping, float
formatting, summarisation, the `shape=` extra) is numpy's own code.

File format, three lines per case:
  <dtype> <shape as comma-separated dims, or '-' for 0-d>
  <the elements in row-major order, space-separated (floats as Python repr, bools as 0/1)>
  <the expected repr, newlines written as the two characters \\n>
Run: python3 tests/data/gen_repr_cases.py > tests/data/repr_cases.txt
"""
import sys

import numpy as np
import numpy._core.arrayprint as arrayprint

arrayprint.dtype_is_implied = lambda dtype: False
rng = np.random.default_rng(20240611)
cases = []


def add(a):
    cases.append(np.asarray(a))


def rand_floats(n, dt, kind):
    if kind == "round1":
        v = np.round(rng.uniform(-10, 10, n), 1)
    elif kind == "round3":
        v = np.round(rng.uniform(-100, 100, n), 3)
    elif kind == "full":
        v = rng.uniform(-1, 1, n)
    elif kind == "ints":
        v = rng.integers(-50, 50, n).astype(float)
    elif kind == "small":
        v = rng.uniform(-1, 1, n) * 1e-5
    elif kind == "large":
        v = rng.uniform(0, 1, n) * 10.0 ** rng.integers(5, 12, n)
    elif kind == "wide":
        v = rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-8, 8, n)
    elif kind == "huge":
        v = rng.uniform(-1, 1, n) * 10.0 ** rng.integers(-300, 300, n)
    elif kind == "special":
        v = rng.uniform(-10, 10, n)
        sp = [np.nan, np.inf, -np.inf, 0.0, -0.0]
        for i in range(n):
            if rng.random() < 0.3:
                v[i] = sp[rng.integers(0, len(sp))]
    else:
        raise ValueError(kind)
    with np.errstate(over="ignore"):  # float32 overflows to inf: a case as good as any
        return v.astype(dt)


kinds = ["round1", "round3", "full", "ints", "small", "large", "wide", "huge", "special"]
# Hand-picked cases: the examples of the spec and the corner cases of numpy's rules.
for dt in (np.float64, np.float32):
    add(np.array([1.5, 2.0, 3.0], dt))
    add(np.array([[1.0, 2.0], [3.0, 4.0]], dt))
    add(np.array(3.5, dt))
    add(np.array(2.0, dt))
    add(np.array(np.nan, dt))
    add(np.array(-np.inf, dt))
    add(np.array(1e-7, dt))
    add(np.zeros(0, dt))
    add(np.zeros((2, 0), dt))
    add(np.zeros((0, 3, 1), dt))
    add(np.array([np.nan, np.inf], dt))
    add(np.array([np.nan, -np.inf, np.inf], dt))
    add(np.array([np.nan, 1.0], dt))
    add(np.array([-np.inf, 1e-6, 2.0], dt))
    add(np.array([-0.0, 0.0, 1.0], dt))
    add(np.array([0.0, 0.0], dt))
    add(np.array([1e8, 1.0], dt))
    add(np.array([99999999.0, 1.0], dt))
    add(np.array([1e6, 1.0], dt))
    add(np.array([999999.0, 1.0], dt))
    add(np.array([1e-4, 1.0e-1], dt))
    add(np.array([0.99e-4, 1.0], dt))
    add(np.array([1.0, 1000.0], dt))
    add(np.array([1.0, 1000.5], dt))
    add(np.array([1e-300, 1e300], np.float64))
    add(np.array([0.1, 0.2, 0.30000000000000004], dt))
    add(np.array([1 / 3, 2 / 3, 0.001953125, 0.123456785], dt))
    add(np.array([12345678.123456789, -0.5], dt))
    add(np.array([np.pi * 10 ** k for k in range(-3, 3)], dt))
    add(np.linspace(0, 1, 30, dtype=dt))
    add(np.linspace(-1e-6, 1e-6, 25, dtype=dt))
for dt in (np.int64, np.int32):
    info = np.iinfo(dt)
    add(np.array([1, 2, 3], dt))
    add(np.array(7, dt))
    add(np.array(-7, dt))
    add(np.array([info.min, 0, info.max], dt))
    add(np.array([-5, 100, 3], dt))
    add(np.arange(60, dtype=dt).reshape(3, 4, 5))
    add(np.arange(-40, 40, 3, dtype=dt))
    add(np.zeros((3, 0), dt))
add(np.array([True, False]))
add(np.array([True, True]))
add(np.array([False, False, False]))
add(np.array(True))
add(np.array(False))
add(np.zeros(0, bool))
add(rng.random((3, 4)) < 0.5)
add(rng.random((2, 3, 40)) < 0.5)
# Random shapes and values.
for i in range(140):
    nd = int(rng.integers(1, 5))
    shape = tuple(int(x) for x in rng.integers(1, 6 if nd > 1 else 40, nd))
    n = int(np.prod(shape))
    r = i % 4
    if r < 2:
        dt = np.float64 if r == 0 else np.float32
        add(rand_floats(n, dt, kinds[i // 4 % len(kinds)]).reshape(shape))
    elif r == 2:
        dt = np.int64 if i % 8 < 4 else np.int32
        hi = 10 ** int(rng.integers(1, 9))
        add(rng.integers(-hi, hi, n).astype(dt).reshape(shape))
    else:
        add((rng.random(n) < 0.5).reshape(shape))
# Summarised (more than 1000 elements): first and last 3 per axis.
add(np.arange(2000, dtype=np.int64))
add(np.arange(1001, dtype=np.float64) / 7)
add(rand_floats(40 * 50, np.float64, "round3").reshape(40, 50))
add(rand_floats(11 * 10 * 12, np.float32, "wide").reshape(11, 10, 12))
add(rand_floats(3 * 400, np.float64, "special").reshape(3, 400))
add((rng.random(1200) < 0.5).reshape(2, 600))
add(rng.integers(-10**9, 10**9, 5 * 2 * 150).astype(np.int32).reshape(5, 2, 150))
add(rand_floats(1001, np.float64, "small").reshape(1001, 1))


def values(a):
    flat = a.ravel()
    if a.dtype == np.bool_:
        return " ".join("1" if x else "0" for x in flat)
    if a.dtype.kind == "i":
        return " ".join(str(int(x)) for x in flat)
    return " ".join(repr(float(x)) for x in flat)


out = sys.stdout
out.write("# generated by gen_repr_cases.py with numpy %s; do not edit\n" % np.__version__)
for a in cases:
    shape = ",".join(str(d) for d in a.shape) if a.ndim else "-"
    out.write("%s %s\n" % (a.dtype.name, shape))
    out.write(values(a) + "\n")
    out.write(repr(a).replace("\n", "\\n") + "\n")
