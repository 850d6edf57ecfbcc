#!/usr/bin/env python3
"""numpy's x[i, j] with two integer index arrays -> tests/data/index_pair_table.txt, and numpy's
x[i, j] = v -> tests/data/index_pair_setitem_table.txt (both read by tests/test_index_pair.cpp).

    build/venv/bin/python3 tests/data/gen_index_pair_table.py

Each case: `case`, then 8 lines: x's shape, x's values (float64, C order), i's shape, i's values,
j's shape, j's values (int64, C order), and either the result's shape and values or `error <kind>`
and numpy's message (kind: index for IndexError).

Each assignment case: `case`, then 10 lines: x's shape and values, i's, j's, v's (float64), then x
after x[i, j] = v (its shape and values), or `error <kind>` and numpy's message (index: IndexError,
value: ValueError)."""
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
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "index_pair_table.txt"), "w") as f:
    f.write("# numpy %s: x[i, j] with integer index arrays i and j (gen_index_pair_table.py)\n" % np.__version__)
    f.writelines(cases)

setitem_cases = []


def add_setitem(xshape, i, j, vshape, xstrides_from=None):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    v = rng.integers(100, 200, size=vshape).astype(np.float64) + 0.5
    after = x.copy()
    try:
        after[i, j] = v
        out = "%s\n%s" % (shape_text(after.shape), text(after))
    except IndexError as e:
        out = "error index\n%s" % str(e).rstrip()
    except ValueError as e:
        out = "error value\n%s" % str(e).rstrip()
    setitem_cases.append("case\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n" % (
        shape_text(xshape), text(x), shape_text(i.shape), text(i), shape_text(j.shape), text(j), shape_text(vshape),
        text(v), out))


add_setitem((3, 4), [0, 2, -1], [1, 0, -4], (3,))
add_setitem((3, 4), [0, 2, -1], [1, 0, -4], ())                 # a scalar value
add_setitem((3, 4), [[0], [2]], [1, 3], (2, 2))                 # a broadcast grid
add_setitem((3, 4), [[0], [2]], [1, 3], (2,))                   # the value broadcast along the grid
add_setitem((3, 4), [1, 1, 1, 2], [2, 2, 2, 0], (4,))           # duplicates: the last one wins
add_setitem((4, 3, 2), [3, 0], [2, 1], (2, 2))                  # a trailing axis
add_setitem((4, 3, 2), [3, 0], [2, 1], (2,))                    # the value broadcast along it
add_setitem((2, 3, 4, 2), [[1], [0]], [0, 2, 1], (3, 1, 2))     # two trailing axes
add_setitem((3, 4), np.zeros(0, np.int64), np.zeros(0, np.int64), ())  # nothing selected
add_setitem((3, 4), [0, 3], [1, 1], (2,))                       # i out of bounds
add_setitem((3, 4), [0, 1], [4, -5], (2,))                      # j out of bounds
add_setitem((3, 4), [0, 5], [9, 1], (2,))                       # both: i's is reported
add_setitem((3, 4), [0, 1], [1, 2, 3], (3,))                    # indices that do not broadcast
add_setitem((3, 4), [0, 1], [1, 2], (3,))                       # a value that does not broadcast
add_setitem((0, 3), [0], [0], (1,))                             # an empty indexed axis
add_setitem((0, 3), np.zeros(0, np.int64), np.zeros(0, np.int64), ())
add_setitem((30, 50), rng.integers(-30, 30, size=200), rng.integers(-50, 50, size=200), (200,))
with open(os.path.join(here, "index_pair_setitem_table.txt"), "w") as f:
    f.write("# numpy %s: x[i, j] = v with integer index arrays i and j (gen_index_pair_table.py)\n" % np.__version__)
    f.writelines(setitem_cases)
