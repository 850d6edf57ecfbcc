#!/usr/bin/env python3
"""Writes isclose_table.txt: numpy's isclose on adversarial pairs, for tests/test_shape_functions.cpp.

    python3 tests/data/gen_isclose_table.py > tests/data/isclose_table.txt

Each case is three lines: "case <dtype a> <dtype b> <rtol> <atol> <equal_nan> <n>", then a's and
b's values (float64 written with float.hex; integers in decimal), then numpy's answer as 0/1.
"""
import numpy as np

rng = np.random.default_rng(2026)
inf, nan = float("inf"), float("nan")
special = [0.0, -0.0, 1.0, -1.0, 1e-8, 2e-8, 1e-5, 1.00001, 1.000011, 1e300, -1e300, 5e-324, inf, -inf, nan,
           100.0, 100.001, 100.0011, 3.0, 3.00003]


def values(dtype, n):
    if dtype in ("float64", "float32"):
        base = np.array(special * (n // len(special) + 1))[:n]
        base = np.where(rng.random(n) < 0.5, base, rng.choice(special, n) * (1 + rng.normal(0, 1e-5, n)))
        return base.astype(dtype)
    if dtype == "bool":
        return rng.random(n) < 0.5
    return rng.integers(-3, 4, n).astype(dtype)


def text(a):
    if a.dtype.kind == "f":
        return " ".join(float(x).hex() for x in a)
    return " ".join(str(int(x)) for x in a)


print("# numpy", np.__version__, "isclose cases (gen_isclose_table.py)")
dtypes = ["float64", "float32", "int32", "int64", "bool"]
for da in dtypes:
    for db in dtypes:
        if da == "bool" and db == "bool":
            continue  # numpy subtracts bool - float fine, but bool - bool raises: not a case here
        for rtol, atol in ((1e-5, 1e-8), (0.0, 0.0), (1e-3, 0.5)):
            for equal_nan in (0, 1):
                n = 48
                a, b = values(da, n), values(db, n)
                # Pairs that are near each other: b from a with a small relative change.
                if da.startswith("float") and db.startswith("float"):
                    near = a.astype("float64") * (1 + rng.normal(0, rtol or 1e-9, n))
                    b = np.where(rng.random(n) < 0.5, b, near.astype(db))
                with np.errstate(all="ignore"):
                    r = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=bool(equal_nan))
                print("case", da, db, float(rtol).hex(), float(atol).hex(), equal_nan, n)
                print(text(a))
                print(text(b))
                print(" ".join("1" if x else "0" for x in r))
