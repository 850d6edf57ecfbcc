#!/usr/bin/env python3
"""numpy's advanced indexing mixed with basic indexing (x[:, i], x[i, 1:3], x[2, :, i], x[i, j, 1:3],
x[i, 2, j], ...), read and assigned -> tests/data/mixed_indexing_table.txt (read by
tests/test_mixed_indexing.cpp).

    build/venv/bin/python3 tests/data/gen_mixed_indexing_table.py

Each case: `case`, then 13 lines: the pattern (the arguments' kinds: `i`, `j` index arrays, `n` an
integer, `r` the range r0:r1, `all`), x's shape and values (float64, C order), i's shape and values,
j's shape and values (int64; `-` when unused), `n r0 r1`, `read` or `set`, v's shape and values (the
value assigned; `-` for a read), then the result (a read's value, or x after the assignment: shape
and values) or `error <kind>` and numpy's message (index: IndexError, value: ValueError)."""
import os

import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(20261129)
cases = []


def key(pattern, n, r0, r1, i, j):
    out = []
    for p in pattern.split():
        out.append({"i": i, "j": j, "b": i, "c": j, "n": n, "r": slice(r0, r1), "all": slice(None)}[p])
    return tuple(out)


# Patterns: i, j index arrays; b, c the same arrays as bool masks (true where their value is 1:
# ilo, ihi = 0, 2 draws half of them true); n an integer; r the range r0:r1; all.
def add(pattern, xshape, ishape, ilo, ihi, jshape=None, jlo=0, jhi=1, n=0, r0=0, r1=1, vshape=None):
    x = rng.integers(-50, 50, size=xshape).astype(np.float64) + 0.25
    i = rng.integers(ilo, ihi, size=ishape).astype(np.int64)
    j = rng.integers(jlo, jhi, size=jshape).astype(np.int64) if jshape is not None else None
    k = key(pattern, n, r0, r1, i != 0 if "b" in pattern.split() else i,
            j != 0 if "c" in pattern.split() else j)
    op = "read" if vshape is None else "set"
    v = rng.integers(100, 200, size=vshape).astype(np.float64) + 0.5 if vshape is not None else None
    try:
        if v is None:
            r = x[k]
        else:
            r = x.copy()
            r[k] = v
        out = "%s\n%s" % (shape_text(r.shape), text(r))
    except IndexError as e:
        out = "error index\n%s" % str(e).rstrip()
    except ValueError as e:
        out = "error value\n%s" % str(e).rstrip()
    cases.append("case\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%d %d %d\n%s\n%s\n%s\n%s\n" % (
        pattern, shape_text(xshape), text(x), shape_text(ishape), text(i),
        shape_text(jshape) if j is not None else "-", text(j) if j is not None else "-", n, r0, r1, op,
        shape_text(vshape) if v is not None else "-", text(v) if v is not None else "-", out))


# Reads: one index array among slices and integers (its axes in place, or first).
add("all i", (3, 4), (5,), -4, 4)
add("all i", (3, 4, 2), (2, 3), -4, 4)
add("i r", (5, 6, 2), (4,), -5, 5, r0=1, r1=5)
add("r i", (5, 6, 2), (3,), -6, 6, r0=4, r1=1)          # an empty range
add("n i", (3, 4, 5), (6,), -4, 4, n=-1)
add("i n", (3, 4, 5), (2, 2), -3, 3, n=2)
add("n all i", (3, 4, 5), (4,), -5, 5, n=1)              # separated by a slice: the index axes first
add("all n i", (3, 4, 5), (4,), -5, 5, n=3)
add("i all n", (3, 4, 5), (3,), -3, 3, n=4)
add("all i", (2, 1), (7,), 0, 1)
add("all i", (4, 33), (0,), 0, 1)                         # nothing selected
add("all i", (4, 0), (0,), 0, 1)                          # an empty axis, nothing selected
# Reads: two index arrays among slices and integers.
add("i j r", (3, 4, 5), (2,), -3, 3, (2,), -4, 4, r0=1, r1=4)
add("i n j", (3, 4, 5), (3, 1), -3, 3, (4,), -5, 5, n=2)
add("i r j", (3, 4, 5), (2,), -3, 3, (2,), -5, 5, r0=0, r1=3)  # separated: the index axes first
add("n i j", (3, 4, 5), (2,), -4, 4, (2,), -5, 5, n=1)
# Errors.
add("all i", (3, 4), (3,), 4, 6)                          # IndexError naming axis 1
add("n all i", (3, 4, 5), (2,), 5, 9, n=0)                # naming axis 2
add("n i", (3, 4, 5), (2,), 0, 4, n=3)                    # the integer out of bounds
add("i n j", (3, 4, 5), (2,), 0, 3, (2,), 5, 7, n=0)      # j's, naming axis 2
add("i r j", (3, 4, 5), (2,), 0, 3, (3,), 0, 5, r0=0, r1=2)  # i and j do not broadcast
add("all i", (4, 0), (2,), 0, 1)                          # an empty axis
# Assignments.
add("all i", (3, 4), (2,), -4, 4, vshape=(2,))            # x[:, i] = v: v along the index axis
add("all i", (3, 4), (2,), -4, 4, vshape=(3, 1))
add("all i", (3, 4), (5,), -4, 4, vshape=())              # duplicates, a scalar
add("all i", (3, 4, 2), (2,), -4, 4, vshape=(3, 2, 2))
add("i r", (5, 6), (3,), -5, 5, r0=1, r1=4, vshape=(3,))
add("r i", (5, 6), (4,), -6, 6, r0=1, r1=3, vshape=(2, 4))
add("n all i", (3, 4, 5), (3,), -5, 5, n=1, vshape=(3, 4))
add("all n i", (3, 4, 5), (2,), -5, 5, n=0, vshape=(2,))
add("i j r", (3, 4, 5), (2,), -3, 3, (2,), -4, 4, r0=1, r1=4, vshape=(2, 3))
add("i r j", (3, 4, 5), (2,), -3, 3, (2,), -5, 5, r0=0, r1=3, vshape=(3,))
add("all i", (3, 4), (2,), -4, 4, vshape=(3,))            # a value that does not broadcast
add("all i", (3, 4), (2,), 4, 6, vshape=())               # an index out of bounds: x untouched
add("i n j", (3, 4, 5), (2,), 0, 3, (2,), 5, 7, n=0, vshape=())
# 1-d bool masks among other indices: numpy's nonzero() of them, read and assigned; masks of
# another length than their axis (IndexError naming the axis), masks selecting nothing.
# Two index arrays after one slice: their broadcast axes stay in place, after the sliced axis.
add("all i j", (3, 4, 5), (2,), -4, 4, (2,), -5, 5)
add("all i j", (2, 3, 4, 2), (2, 1), -3, 3, (1, 3), -4, 4)    # a broadcast grid, a trailing axis
add("r i j all", (4, 3, 5, 2), (3,), -3, 3, (3,), -5, 5, r0=1, r1=3)
add("r n i j", (4, 2, 3, 5), (2,), -3, 3, (2,), -5, 5, n=1, r0=0, r1=3)
add("r i n j", (4, 3, 2, 5), (4,), -3, 3, (1,), -5, 5, n=-1, r0=3, r1=1)  # an empty slice: nothing read
add("all i j", (0, 4, 5), (2,), -4, 4, (2,), -5, 5)          # an empty sliced axis: indices still checked
add("all i j", (0, 4, 5), (2,), 4, 6, (2,), -5, 5)
add("all i j", (3, 4, 5), (2,), 0, 4, (2,), 5, 9)           # j's error naming axis 2
add("all i j", (3, 4, 5), (2,), 4, 9, (2,), 5, 9)           # i's first
add("all i j", (3, 4, 5), (2,), 0, 4, (3,), 0, 5)           # i and j do not broadcast
add("all i j", (3, 4, 5), (2,), -4, 4, (2,), -5, 5, vshape=(3, 2))
add("all i j", (3, 4, 5), (3,), 0, 4, (3,), 0, 5, vshape=())
add("r i j all", (4, 3, 5, 2), (2,), -3, 3, (2,), -5, 5, r0=1, r1=3, vshape=(2,))
add("all i j", (3, 4, 5), (2,), 0, 4, (2,), 5, 9, vshape=())  # out of bounds: x untouched
add("all i c", (3, 4, 5), (1,), -4, 4, (5,), 0, 2)            # x[:, i, mask]
add("all b", (3, 4), (4,), 0, 2)
add("all b", (3, 4, 2), (4,), 1, 2)                       # all true
add("all b", (3, 4), (4,), 0, 1)                          # none true
add("b r", (5, 6, 2), (5,), 0, 2, r0=1, r1=5)
add("n all b", (3, 4, 5), (5,), 0, 2, n=1)
add("b n", (3, 4, 5), (3,), 0, 2, n=2)
add("i c", (3, 4), (1,), -3, 3, (4,), 0, 2)               # x(i, mask): the two-operand form
add("b j r", (3, 4, 5), (3,), 1, 2, (1,), -4, 4, r0=1, r1=4)
add("all b", (3, 4), (3,), 0, 2)                          # the mask's length is not its axis's
add("b r", (5, 6), (4,), 0, 2, r0=0, r1=2)
add("i c", (3, 4), (2,), 0, 3, (4,), 1, 2)                # 2 indices and 4 positions: no broadcast
add("all b", (3, 4), (4,), 0, 2, vshape=())               # x[:, mask] = 7.5
add("b r", (5, 6), (5,), 1, 2, r0=1, r1=3, vshape=(1, 2))
add("n all b", (3, 4, 5), (5,), 0, 2, n=0, vshape=(4, 1))
# Three or more index arrays among integers and slices, and two after two or more slices
# (numpy's general case: adjacent advanced indices keep their place, separated ones go first).
add("i j i", (3, 4, 5), (2,), -3, 3, (2,), -4, 4)              # x(i, j, k) overload's neighbour
add("i j i j", (3, 4, 3, 4), (2, 1), -3, 3, (1, 3), -3, 3)     # four, a broadcast grid
add("i j i j", (3, 4, 3, 4, 2), (2,), -3, 3, (2,), -3, 3)      # and a trailing axis
add("all i j i", (2, 3, 4, 3), (3,), -3, 3, (3,), -4, 4)       # after a slice: kept in place
add("r r i j", (4, 3, 5, 6), (2,), -5, 5, (2,), -6, 6, r0=1, r1=3)  # two after two slices
add("all all i j all", (2, 3, 4, 5, 2), (2, 2), -4, 4, (2,), -5, 5)
add("i n j i", (3, 4, 5, 3), (2,), -3, 3, (1,), -5, 5, n=2)    # an integer among them: adjacent
add("i all j i", (3, 4, 5, 3), (2,), -3, 3, (2,), -5, 5)       # separated: the index axes first
add("all i all j i", (2, 3, 4, 5, 3), (2,), -3, 3, (2,), -5, 5)
add("r r i j", (4, 3, 5, 6), (2,), -5, 5, (2,), -6, 6, r0=2, r1=2)  # an empty slice: nothing read
add("r r i j", (4, 3, 5, 6), (2,), 5, 7, (2,), -6, 6, r0=2, r1=2)   # ... indices still checked
add("all all i j", (0, 3, 4, 5), (2,), -4, 4, (2,), -5, 5)
add("i j i j", (3, 4, 3, 4), (2,), 0, 3, (2,), 4, 6)           # j's error naming axis 1
add("i j i j", (3, 4, 2, 4), (2,), 2, 3, (2,), 0, 4)           # the third index (i) naming axis 2
add("all i j i", (2, 3, 4, 3), (2,), -3, 3, (3,), -4, 4)       # no broadcast
add("all all i j", (2, 3, 4, 5), (2,), 0, 4, (2,), 5, 9)       # naming axis 3
add("i j i j", (3, 4, 3, 4), (), -3, 3, (2,), -3, 3)              # a 0-d index array
add("i j i j", (3, 4, 5), (2,), 0, 3, (2,), 0, 4)                 # too many indices
add("i j i j", (3, 4, 3, 4), (2,), -3, 3, (2,), -3, 3, vshape=(2,))
add("all i j i", (2, 3, 4, 3), (3,), -3, 3, (3,), -4, 4, vshape=(2, 3))
add("r r i j", (4, 3, 5, 6), (2,), -5, 5, (2,), -6, 6, r0=1, r1=3, vshape=(2, 1, 2))
add("r r i j", (4, 3, 5, 6), (2,), -5, 5, (2,), -6, 6, r0=1, r1=3, vshape=(2, 3, 1))  # does not fit
add("i all j i", (3, 4, 5, 3), (2,), -3, 3, (2,), -5, 5, vshape=(2, 4))
add("all all i j", (2, 3, 4, 5), (2,), 0, 4, (2,), 5, 9, vshape=())  # out of bounds: x untouched
# A mask of two axes as the only index array: numpy's nonzero() of it, x's axes it covers merged.
add("all b", (2, 3, 4), (3, 4), 0, 2)                     # x[:, mask2d]
add("n b", (3, 4, 5), (4, 5), 0, 2, n=1)                  # x[1, mask2d]
add("b r", (3, 4, 5), (3, 4), 0, 2, r0=1, r1=4)           # x[mask2d, 1:4]
add("all b", (2, 3, 4), (3, 4), 0, 1)                     # none true
add("all b", (2, 3, 4), (3, 5), 0, 2)                     # its shape is not x's: axis 2
add("all b", (2, 3), (3, 4), 0, 2)                        # too many indices
add("b n", (3, 4, 5), (3, 4), 0, 2, n=7)                  # the integer after it, naming axis 2
add("all b", (2, 3, 4, 2), (3, 4), 0, 2, vshape=())       # x[:, mask2d] = 7.5
add("all b", (2, 3, 4), (3, 4), 1, 2, vshape=(2, 12))     # all true: a value per selected column
# An empty axis whose index arrays broadcast to nothing: numpy reads nothing and checks nothing.
add("all i j", (2, 0, 3), (1,), 5, 6, (0,), 0, 1)           # x[:, [5], []]: (2, 0)
add("i j i", (0, 3, 2), (1,), 5, 6, (0,), 0, 1)             # x[[5], [], [5]]: (0,)
add("i j i j", (0, 3, 2, 2), (1,), 1, 2, (0,), 0, 1)        # x[[1], [], [1], []]: (0,)
add("all i j", (2, 0, 3), (1,), 5, 6, (0,), 0, 1, vshape=())  # nothing assigned
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mixed_indexing_table.txt"), "w") as f:
    f.write("# numpy %s: index arrays mixed with slices and integers, read and assigned "
            "(gen_mixed_indexing_table.py)\n" % np.__version__)
    f.writelines(cases)
