#!/usr/bin/env python3
"""Writes tests/data/philox4x32_table.txt: jf::random::philox4x32's draws, from a pure-Python
reference of its stream (no numpy: numpy has no Philox4x32).

The stream (docs/design.md, "Random numbers as leaves"): Random123's philox4x32_10 with key
(seed mod 2**32, seed >> 32); 64-bit output q is words 2r, 2r + 1 (r = q % 2, low word first) of
the block of counter (b mod 2**32, b >> 32, 0, 0), b = q // 2. Draws take outputs as numpy's
Generator does with its Philox (jf::random::philox): random f64 the top 53 bits of the next output,
random f32 the top 24 bits of the next 32-bit half (low half first, the high half kept for the next
float32 draw), uniform low + (high - low) * random; normal (float64) Box-Muller on pairs of outputs
from an even position, integers Lemire's floor(w * range / 2**64). Each case is a seed and a
sequence of draws from one generator, as tests/test_random.cpp makes them; values as float.hex.

    python3 tests/data/gen_philox4x32_table.py > tests/data/philox4x32_table.txt
"""
import math

MASK32 = 0xFFFFFFFF
M0, M1 = 0xD2511F53, 0xCD9E8D57  # Random123's PHILOX_M4x32_0, _1
W0, W1 = 0x9E3779B9, 0xBB67AE85  # PHILOX_W32_0, _1: the key's Weyl increments


def philox4x32_10(ctr, key):
    """Random123's philox4x32_10(ctr, key): 4 words from 4 counter words and 2 key words."""
    c0, c1, c2, c3 = ctr
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + W0) & MASK32, (k1 + W1) & MASK32
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & MASK32, (p0 >> 32) ^ c3 ^ k1, p0 & MASK32
    return [c0, c1, c2, c3]


# Random123's known-answer vectors (kat_vectors: philox4x32 10).
KAT = [
    ([0, 0, 0, 0], [0, 0], [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]),
    ([MASK32] * 4, [MASK32] * 2, [0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD]),
    ([0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344], [0xA4093822, 0x299F31D0],
     [0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1]),
]


class Philox4x32:
    """jf::random::philox4x32(seed): outputs and the leaves' positions."""

    def __init__(self, seed):
        self.key = (seed & MASK32, seed >> 32)
        self.next = 0  # the next 64-bit output
        self.half = None  # the kept high half (numpy's has_uint32)

    def output(self, q):
        w = philox4x32_10([(q >> 1) & MASK32, q >> 33, 0, 0], self.key)
        r = q & 1
        return w[2 * r] | (w[2 * r + 1] << 32)

    def take(self):
        q = self.next
        self.next += 1
        return self.output(q)

    def random_f64(self, n):
        return [(self.take() >> 11) * 2.0**-53 for _ in range(n)]

    def random_f32(self, n):
        v = []
        for _ in range(n):
            if self.half is not None:
                h, self.half = self.half, None
            else:
                w = self.take()
                h, self.half = w & MASK32, w >> 32
            v.append((h >> 8) * 2.0**-24)
        return v

    def uniform(self, low, high, n):
        return [low + (high - low) * x for x in self.random_f64(n)]

    def normal(self, n):  # float64, loc 0, scale 1
        self.next += self.next & 1
        v = []
        for m in range((n + 1) // 2):
            a, b = self.take(), self.take()
            u1 = ((a >> 11) + 1) * 2.0**-53
            t = 6.283185307179586 * ((b >> 11) * 2.0**-53)
            r = math.sqrt(-2.0 * math.log(u1))
            v += [r * math.cos(t), r * math.sin(t)]
        return v[:n]

    def integers(self, low, high, n):  # int64
        return [low + ((self.take() * (high - low)) >> 64) for _ in range(n)]


SEEDS = [0, 1, 12345, 2**32, 2**64 - 1, 0x0123456789ABCDEF]
SEQUENCES = [
    [("random", "f64", 9)],
    [("random", "f32", 9)],
    [("random", "f32", 3), ("random", "f64", 2), ("random", "f32", 4), ("random", "f32", 1)],
    [("random", "f64", 5), ("uniform", -2.5, 7.25, 6), ("random", "f32", 7)],
    [("random", "f64", 0), ("random", "f32", 1), ("uniform", 1e-3, 1e3, 3)],
    [("random", "f64", 3), ("normal", 7), ("integers", -3, 1000000007, 5), ("random", "f32", 5)],
    [("integers", -(2**62), 2**62, 4), ("normal", 4)],
    [("random", "f64", 301)],
]


def main():
    for ctr, key, want in KAT:
        assert philox4x32_10(ctr, key) == want, (ctr, key)
    print("# jf::random::philox4x32 (Random123's philox4x32_10); written by tests/data/gen_philox4x32_table.py")
    for seed in SEEDS:
        for seq in SEQUENCES:
            g = Philox4x32(seed)
            print("case %d" % seed)
            for d in seq:
                if d[0] == "random":
                    v = g.random_f64(d[2]) if d[1] == "f64" else g.random_f32(d[2])
                    print("random %s %d %s" % (d[1], d[2], " ".join(x.hex() for x in v)))
                elif d[0] == "uniform":
                    v = g.uniform(d[1], d[2], d[3])
                    print("uniform %s %s %d %s" % (float(d[1]).hex(), float(d[2]).hex(), d[3],
                                                   " ".join(x.hex() for x in v)))
                elif d[0] == "normal":
                    print("normal %d %s" % (d[1], " ".join(x.hex() for x in g.normal(d[1]))))
                else:
                    v = g.integers(d[1], d[2], d[3])
                    print("integers %d %d %d %s" % (d[1], d[2], d[3], " ".join(str(x) for x in v)))


if __name__ == "__main__":
    main()
