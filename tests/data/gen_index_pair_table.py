#!/usr/bin/env python3
"""numpy's x[i, j] with two integer index arrays -> tests/data/index_pair_table.txt (read by
tests/test_index_pair.cpp).

    build/venv/bin/python3 tests/data/gen_index_pair_table.py

Each case: `case`, then 8 lines: x's shape, x's values (float64, C order), i's shape, i's values,
j's shape, j's values (int64, C order), and either the result's shape and values or `error <kind>`
and numpy's message (kind: index for IndexError)."""
import os

import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(20261129)
cases = []


def add(xshape, ishape, jshape, ilo=None, ihi=None, jlo=None, jhi=None):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    n0, n1 = xshape[0], xshape[1]
    i = rng.integers(-n0 if ilo is None else ilo, max(n0, 1) if ihi is None else ihi, size=ishape).astype(np.int64)
    j = rng.integers(-n1 if jlo is None else jlo, max(n1, 1) if jhi is None else jhi, size=jshape).astype(np.int64)
    try:
        r = x[i, j]
        out = "%s\n%s" % (shape_text(r.shape), text(r))
    except IndexError as e:
        out = "error index\n%s" % str(e).rstrip()
    cases.append("case\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n" % (shape_text(xshape), text(x), shape_text(ishape), text(i),
                                                        shape_text(jshape), text(j), out))


add((3, 4), (5,), (5,))
add((3, 4), (1,), (6,))                 # i broadcast
add((3, 4), (2, 1), (1, 3))             # an outer grid of picks
add((3, 4), (2, 3), (3,))
add((1, 1), (4,), (4,))
add((7, 9), (0,), (0,))                 # nothing selected
add((7, 9), (0,), (1,))
add((5, 6, 3), (4,), (4,))              # a trailing axis kept
add((2, 3, 4, 2), (3, 1), (1, 2))       # two trailing axes
add((40, 70), (50,), (50,))
add((3, 4), (5,), (5,), 3, 5)           # i out of bounds
add((3, 4), (5,), (5,), -6, -4)         # i out of bounds, negative
add((3, 4), (5,), (5,), None, None, 4, 9)   # j out of bounds
add((3, 4), (5,), (5,), 3, 9, 4, 9)     # both: i's is reported
add((0, 3), (2,), (2,), 0, 1)           # an empty indexed axis
add((3, 0), (2,), (2,), 0, 1, 0, 1)
add((3, 0), (2,), (2,), 5, 6, 0, 1)
add((0, 3), (0,), (2,), 0, 1)           # nothing selected from an empty axis
add((3, 4), (2,), (3,))                 # shapes that do not broadcast
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "index_pair_table.txt"), "w") as f:
    f.write("# numpy %s: x[i, j] with integer index arrays i and j (gen_index_pair_table.py)\n" % np.__version__)
    f.writelines(cases)
