#!/usr/bin/env python3
"""Writes tests/data/philox_table.txt: numpy's Generator(Philox(key=k)) draws, in order.

Each case is a key and a sequence of draws from one generator, as tests/test_random.cpp makes
them with jf::random::philox: `random f64 N`, `random f32 N` (dtype=np.float32: halves of 64-bit
outputs, the high half kept for the next float32 draw) and `uniform LOW HIGH N`; values as
float.hex (float32 draws widened exactly).

    build/venv/bin/python3 tests/data/gen_philox_table.py > tests/data/philox_table.txt
"""
import numpy as np

KEYS = [(0, 0), (12345, 0), (2**64 - 1, 2**64 - 1), (0x0123456789ABCDEF, 0xFEDCBA9876543210)]
SEQUENCES = [
    [("random", "f64", 9)],
    [("random", "f32", 9)],
    [("random", "f32", 3), ("random", "f64", 2), ("random", "f32", 4), ("random", "f32", 1)],
    [("random", "f64", 5), ("uniform", -2.5, 7.25, 6), ("random", "f32", 7)],
    [("random", "f64", 0), ("random", "f32", 1), ("uniform", 1e-3, 1e3, 3)],
    [("random", "f64", 1003)],
]


def main():
    print("# numpy %s; written by tests/data/gen_philox_table.py" % np.__version__)
    for k0, k1 in KEYS:
        for seq in SEQUENCES:
            g = np.random.Generator(np.random.Philox(key=k1 * 2**64 + k0))
            print("case %d %d" % (k0, k1))
            for d in seq:
                if d[0] == "random":
                    v = g.random(d[2], dtype=np.float64 if d[1] == "f64" else np.float32)
                    print("random %s %d %s" % (d[1], d[2], " ".join(float(x).hex() for x in v)))
                else:
                    v = g.uniform(d[1], d[2], d[3])
                    print("uniform %s %s %d %s" % (float(d[1]).hex(), float(d[2]).hex(), d[3],
                                                   " ".join(float(x).hex() for x in v)))


if __name__ == "__main__":
    main()
