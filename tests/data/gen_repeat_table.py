#!/usr/bin/env python3
"""numpy.repeat with per-element counts -> tests/data/repeat_table.txt (read by tests/test_repeat_counts.cpp).

Each case: `case <axis|none>`, then 5 lines: a's shape, a's values (float64, C order), the counts
(int64), the result's shape (or `error`), the result's values (or numpy's error message)."""
import os
import numpy as np

rng = np.random.default_rng(20261124)
cases = []
def add(shape, counts, axis):
    a = rng.integers(-50, 50, size=shape).astype(np.float64)
    counts = np.asarray(counts, dtype=np.int64)
    try:
        r = np.repeat(a, counts, axis=axis)
        out = (" ".join(map(str, r.shape)), " ".join(repr(float(v)) for v in r.ravel()))
    except ValueError as e:
        out = ("error", str(e))
    cases.append((("none" if axis is None else str(axis)), " ".join(map(str, shape)), " ".join(repr(float(v)) for v in a.ravel()),
                  " ".join(map(str, counts)), out))

add((5,), [2, 0, 3, 1, 0], None)
add((5,), [0, 0, 0, 0, 0], None)
add((5,), [4], None)
add((2, 3), [1, 2, 0, 3, 1, 1], None)
add((2, 3), [3, 0], 0)
add((2, 3), [1, 0, 2], 1)
add((2, 3), [1, 0, 2], -1)
add((3, 2, 2), [0, 2, 1], 0)
add((3, 2, 2), [2, 1], 1)
add((3, 2, 2), [5, 0], 2)
add((0,), [], None)
add((2, 0), [], 1)
add((1,), [7], 0)
add((33,), list(rng.integers(0, 5, size=33)), 0)
add((5,), [1, -1, 2, 0, 1], None)     # negative count
add((5,), [1, 2], None)               # wrong length
add((2, 3), [1, 2, 3], 0)             # wrong length along an axis
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "repeat_table.txt"), "w") as f:
    f.write("# numpy %s: numpy.repeat(a, counts, axis) (gen_repeat_table.py)\n" % np.__version__)
    for axis, shape, vals, counts, (rshape, rvals) in cases:
        f.write("case %s\n%s\n%s\n%s\n%s\n%s\n" % (axis, shape, vals, counts, rshape, rvals))
