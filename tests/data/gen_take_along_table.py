#!/usr/bin/env python3
"""numpy.take_along_axis -> tests/data/take_along_table.txt (read by tests/test_take_along_axis.cpp).

    build/venv/bin/python3 tests/data/gen_take_along_table.py

Each case: `case <axis>`, then 5 lines: x's shape, x's values (float64, C order), the indices' shape,
the indices (int64, C order), and either the result's shape and values or `error <kind>` and numpy's
message (kind: index for IndexError, value for ValueError, shape for a broadcast mismatch)."""
import os

import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(20261128)
cases = []


def add(xshape, ishape, axis, lo=None, hi=None):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    n = xshape[axis]
    idx = rng.integers(-n if lo is None else lo, max(n, 1) if hi is None else hi, size=ishape).astype(np.int64)
    try:
        r = np.take_along_axis(x, idx, axis=axis)
        out = "%s\n%s" % (shape_text(r.shape), text(r))
    except IndexError as e:
        msg = str(e)
        kind = "shape" if msg.startswith("shape mismatch") else "index"
        out = "error %s\n%s" % (kind, msg)
    except ValueError as e:
        out = "error value\n%s" % e
    cases.append("case %d\n%s\n%s\n%s\n%s\n%s\n" % (axis, shape_text(xshape), text(x), shape_text(ishape), text(idx), out))


add((7,), (5,), 0)
add((7,), (0,), 0)
add((1,), (9,), 0)
add((4, 6), (4, 3), 1)                 # rows: three picks each
add((4, 6), (4, 1), 1)                 # argmax-with-keepdims shape
add((4, 6), (2, 6), 0)                 # columns
add((4, 6), (1, 5), 1)                 # indices broadcast over the rows
add((1, 6), (4, 2), 1)                 # x broadcast over the rows
add((4, 6), (4, 3), -1)
add((3, 4, 5), (3, 4, 2), 2)
add((3, 4, 5), (3, 2, 5), 1)
add((3, 4, 5), (6, 4, 5), 0)
add((3, 4, 5), (1, 4, 1), 2)
add((3, 0, 5), (3, 2, 5), 2)           # an empty result along another axis
add((2, 33), (2, 70), 1)
add((4, 6), (4, 3), 1, 6, 7)           # out of bounds
add((4, 6), (4, 3), 1, -7, -6)         # out of bounds, negative
add((4, 0), (4, 1), 1, 0, 1)           # taking from an empty axis
add((4, 6), (4,), 1)                   # another rank
add((4, 6), (3, 2), 1)                 # no broadcast
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "take_along_table.txt"), "w") as f:
    f.write("# numpy %s: numpy.take_along_axis(x, indices, axis) (gen_take_along_table.py)\n" % np.__version__)
    f.writelines(cases)
