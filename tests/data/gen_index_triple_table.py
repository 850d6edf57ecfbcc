#!/usr/bin/env python3
"""numpy's x[i, j, k] with three integer index arrays -> tests/data/index_triple_table.txt, and
numpy's x[i, j, k] = v -> tests/data/index_triple_setitem_table.txt (both read by
tests/test_index_pair.cpp).

    build/venv/bin/python3 tests/data/gen_index_triple_table.py

Each case: `case`, then 10 lines: x's shape, x's values (float64, C order), i's, j's and k's shapes
and values (int64, C order), and either the result's shape and values or `error <kind>` and numpy's
message (kind: index for IndexError).

Each assignment case: `case`, then 12 lines: x's shape and values, i's, j's, k's, v's (float64),
then x after x[i, j, k] = v (its shape and values), or `error <kind>` and numpy's message (index:
IndexError, value: ValueError)."""
import os

import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(20261130)
cases = []


def indices(n, shape, lo, hi):
    return rng.integers(-n if lo is None else lo, max(n, 1) if hi is None else hi, size=shape).astype(np.int64)


def add(xshape, shapes, bounds=((None, None),) * 3):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    idx = [indices(xshape[a], shapes[a], bounds[a][0], bounds[a][1]) for a in range(3)]
    try:
        r = x[idx[0], idx[1], idx[2]]
        out = "%s\n%s" % (shape_text(r.shape), text(r))
    except IndexError as e:
        out = "error index\n%s" % str(e).rstrip()
    lines = [shape_text(xshape), text(x)]
    for a in range(3):
        lines += [shape_text(shapes[a]), text(idx[a])]
    cases.append("case\n%s\n%s\n" % ("\n".join(lines), out))


add((3, 4, 5), [(6,), (6,), (6,)])
add((3, 4, 5), [(1,), (6,), (1,)])                       # i and k broadcast
add((3, 4, 5), [(2, 1, 1), (1, 3, 1), (1, 1, 4)])        # an outer grid of picks
add((2, 3, 4, 3), [(5,), (5,), (5,)])                    # a trailing axis kept
add((2, 2, 3, 2, 2), [(2, 1), (1, 3), (3,)])             # two trailing axes
add((1, 1, 1), [(4,), (4,), (4,)])
add((6, 7, 8), [(0,), (0,), (0,)])                       # nothing selected
add((20, 30, 40), [(300,), (300,), (300,)])
add((3, 4, 5), [(6,), (6,), (6,)], ((3, 6), (None, None), (None, None)))     # i out of bounds
add((3, 4, 5), [(6,), (6,), (6,)], ((None, None), (-9, -5), (None, None)))   # j out of bounds, negative
add((3, 4, 5), [(6,), (6,), (6,)], ((None, None), (None, None), (5, 9)))     # k out of bounds
add((3, 4, 5), [(6,), (6,), (6,)], ((None, None), (4, 9), (5, 9)))           # j and k: j's is reported
add((3, 4, 5), [(6,), (6,), (6,)], ((3, 9), (4, 9), (5, 9)))                 # all three: i's
add((3, 0, 5), [(2,), (2,), (2,)], ((0, 1), (0, 1), (0, 1)))                 # an empty indexed axis
add((3, 0, 5), [(2,), (2,), (2,)], ((7, 8), (0, 1), (0, 1)))                 # i's reported before it
add((3, 0, 5), [(0,), (2,), (2,)], ((0, 1), (0, 1), (0, 1)))                 # nothing selected from it
add((3, 4, 5), [(2,), (3,), (1,)])                       # shapes that do not broadcast
add((3, 4, 5), [(2,), (2,), (3,)])
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "index_triple_table.txt"), "w") as f:
    f.write("# numpy %s: x[i, j, k] with integer index arrays (gen_index_triple_table.py)\n" % np.__version__)
    f.writelines(cases)

setitem_cases = []


def add_setitem(xshape, i, j, k, vshape):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    idx = [np.asarray(e, dtype=np.int64) for e in (i, j, k)]
    v = rng.integers(100, 200, size=vshape).astype(np.float64) + 0.5
    after = x.copy()
    try:
        after[idx[0], idx[1], idx[2]] = v
        out = "%s\n%s" % (shape_text(after.shape), text(after))
    except IndexError as e:
        out = "error index\n%s" % str(e).rstrip()
    except ValueError as e:
        out = "error value\n%s" % str(e).rstrip()
    lines = [shape_text(xshape), text(x)]
    for e in idx:
        lines += [shape_text(e.shape), text(e)]
    lines += [shape_text(vshape), text(v)]
    setitem_cases.append("case\n%s\n%s\n" % ("\n".join(lines), out))


add_setitem((3, 4, 5), [0, 2, -1], [1, 0, -4], [4, -5, 2], (3,))
add_setitem((3, 4, 5), [0, 2, -1], [1, 0, -4], [4, -5, 2], ())           # a scalar value
add_setitem((3, 4, 5), [[0], [2]], [1, 3], [[[4]]], (1, 2, 2))           # a broadcast grid
add_setitem((3, 4, 5), [1, 1, 1, 2], [2, 2, 2, 0], [3, 3, 3, 1], (4,))  # duplicates: the last one wins
add_setitem((4, 3, 2, 2), [3, 0], [2, 1], [1, 0], (2, 2))                # a trailing axis
add_setitem((4, 3, 2, 2), [3, 0], [2, 1], [1, 0], (2,))                  # the value broadcast along it
add_setitem((3, 4, 5), np.zeros(0), np.zeros(0), np.zeros(0), ())       # nothing selected
add_setitem((3, 4, 5), [0, 3], [1, 1], [0, 0], (2,))                    # i out of bounds
add_setitem((3, 4, 5), [0, 1], [1, 1], [5, -6], (2,))                   # k out of bounds
add_setitem((3, 4, 5), [0, 1], [9, 1], [7, 0], (2,))                    # j's reported before k's
add_setitem((3, 4, 5), [0, 1], [1, 2, 3], [0], (3,))                    # indices that do not broadcast
add_setitem((3, 4, 5), [0, 1], [1, 2], [0, 1], (3,))                    # a value that does not broadcast
add_setitem((3, 0, 5), [0], [0], [0], (1,))                             # an empty indexed axis
add_setitem((10, 20, 30), rng.integers(-10, 10, size=300), rng.integers(-20, 20, size=300),
            rng.integers(-30, 30, size=300), (300,))
with open(os.path.join(here, "index_triple_setitem_table.txt"), "w") as f:
    f.write("# numpy %s: x[i, j, k] = v with integer index arrays (gen_index_triple_table.py)\n" % np.__version__)
    f.writelines(setitem_cases)
