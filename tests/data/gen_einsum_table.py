#!/usr/bin/env python3
"""Writes einsum_table.txt: numpy.einsum's results and errors for the contractions users write
(matrix products, sums, transposes, traces and diagonals, outer and batched products, three
operands, extents of 1 broadcast, empty extents) over bool, int32, int64, float32 and float64 and
mixed dtypes (numpy's result dtype), for tests/test_einsum.cpp. The values are small integers, so
float results are exact in any order of summation.

    python3 tests/data/gen_einsum_table.py > tests/data/einsum_table.txt

Each case is a line "case <subscripts> <number of operands>", then per operand a line
"<dtype> <shape>" and a line of its values (C order), then "ok <dtype> <shape>" and the result's
values, or "error ValueError" and numpy's message. Shapes as 2x3, "scalar" for 0-d; "-" for no
values.
"""
import numpy as np

from table_text import shape_text, text

rng = np.random.default_rng(2033)



def values(dtype, shape):
    n = int(np.prod(shape))
    if dtype == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    return rng.integers(-3, 4, n).astype(dtype).reshape(shape)


def case(subscripts, *operands):
    arrays = [values(d, s) for d, s in operands]
    print("case", subscripts, len(arrays))
    for (d, s), a in zip(operands, arrays):
        print(d, shape_text(s))
        print(text(a))
    try:
        r = np.asarray(np.einsum(subscripts, *arrays))
        print("ok", r.dtype, shape_text(r.shape))
        print(text(r))
    except ValueError as e:
        print("error ValueError")
        print(str(e))


for d in ["float64", "float32", "int64", "int32", "bool"]:
    case("ij,jk->ik", (d, (3, 4)), (d, (4, 5)))
    case("ij,jk->k", (d, (7, 5)), (d, (5, 6)))
    case("ij,jk", (d, (2, 3)), (d, (3, 4)))
    case("ij->ji", (d, (3, 5)))
    case("ij->", (d, (4, 6)))
    case("ij->j", (d, (33, 3)))
    case("i,i->", (d, (9,)))
    case("i,i", (d, (9,)), (d, (9,)))
    case("i,j->ij", (d, (3,)), (d, (4,)))
    case("ii->i", (d, (4, 4)))
    case("ii", (d, (5, 5)))
    case("bij,bjk->bik", (d, (2, 3, 4)), (d, (2, 4, 2)))
    case("ij,ij->ij", (d, (3, 4)), (d, (3, 4)))
    case("ij,ij->i", (d, (3, 4)), (d, (3, 4)))
    case("ij,j->i", (d, (5, 4)), (d, (4,)))
    case("abc,cd,de->ae", (d, (2, 3, 4)), (d, (4, 3)), (d, (3, 2)))
    case("ij,jk", (d, (2, 3)), (d, (1, 5)))
    case("ij,jk->ik", (d, (0, 3)), (d, (3, 4)))
    case("ij,jk->ik", (d, (2, 0)), (d, (0, 4)))
    case("i->", (d, (0,)))
    case("iij->ji", (d, (3, 3, 2)))
    case("Ba", (d, (2, 3)))
    case("aB", (d, (2, 3)))
# numpy's result dtype of mixed operands
case("ij,jk->ik", ("int32", (2, 3)), ("float32", (3, 2)))
case("i,i->", ("bool", (4,)), ("int64", (4,)))
case("ij,j->i", ("float32", (3, 2)), ("int64", (2,)))
case("i,i", ("int32", (5,)), ("int64", (5,)))
# numpy's errors
case("ij->k", ("float64", (2, 3)))
case("i->ii", ("float64", (2,)))
case("ij", ("float64", (2, 3, 4)))
case("ijk", ("float64", (2, 3)))
case("ij,j", ("float64", (2, 3)))
case("i", ("float64", (2,)), ("float64", (2,)))
case("i$", ("float64", (2,)))
case("ii", ("float64", (2, 3)))
