"""Run-time inputs of a jagged case: list lengths, offsets and contents (the expression's types are
fixed; these are read by the runner, so one compile serves every variant).

Every jagged leaf of a variant has the same list lengths (the expressions broadcast them). Each
leaf gets its own offsets array starting past 0 (unused content before and after its lists), or
shares an earlier leaf's offsets array (the same buffer: identity); a "sliced" variant views lists
[s, s + n) of a longer parent (x(jf::range(s, s + n))). Lengths: Poisson of a random mean, zero
lists, one list, only empty lists, and one long list (300-3000 elements, or over 4096).
"""
import awkward as ak
import numpy as np

KINDS = ["poisson", "sliced", "edge", "long", "poisson", "sliced"]


class Variant:
    def __init__(self, kind):
        self.kind = kind
        self.jagged = []  # (dtype, offsets int64 of the parent, content, share, start, stop)
        self.lists = []   # per-list numpy arrays

    def n(self):
        _, off, _, _, start, stop = self.jagged[0]
        return (stop - start) if start >= 0 else len(off) - 1

    def inputs(self):
        """The operands as Awkward sees them: jagged ak.Arrays (views) and per-list numpy arrays."""
        jag = []
        for dt, off, content, share, start, stop in self.jagged:
            x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(off), ak.contents.NumpyArray(content)))
            jag.append(x[start:stop] if start >= 0 else x)
        return jag, list(self.lists)

    def describe(self):
        out = []
        for i, (dt, off, content, share, start, stop) in enumerate(self.jagged):
            out.append("a%d: %s, %d lists%s, offsets from %d%s" % (
                i, dt, len(off) - 1, " viewed [%d:%d]" % (start, stop) if start >= 0 else "", off[0],
                " (a%d's offsets array)" % share if share >= 0 else ""))
        return "; ".join(out)


def values(g, dtype, n):
    if dtype == "bool":
        return g.random(n) < 0.5
    if dtype in ("float32", "float64"):
        v = g.integers(-40, 41, n) / 4  # multiples of 1/4: ties and exact sums are frequent
        if g.random() < 0.3:
            v = v * g.choice([1e-3, 1e3, 3.0001])  # other magnitudes, inexact sums
        return v.astype(dtype)
    return g.integers(-20, 21, n).astype(dtype)


def lengths(g, kind, pairs):
    if kind in ("poisson", "sliced"):
        return g.poisson(g.choice([0.5, 1.5, 3.0, 6.0]), int(g.integers(1, 40)))
    if kind == "edge":
        which = g.integers(0, 3)
        if which == 0:
            return np.zeros(0, np.int64)            # no lists
        if which == 1:
            return g.integers(0, 6, 1)              # one list
        return np.zeros(int(g.integers(1, 6)), np.int64)  # only empty lists
    counts = g.poisson(2.0, int(g.integers(2, 8)))
    # A list for the warp path, or (one variant in three) one longer than 4096 for the block path:
    # the CUDA list kernel leaves out the paths no list needs (the offsets' longest list).
    long = g.integers(300, 3000) if g.random() < 2 / 3 else g.integers(4097, 6000)
    counts[int(g.integers(0, len(counts)))] = int(g.integers(60, 150) if pairs else long)
    return counts


def make_variants(rng, case, nvariants):
    out = []
    for k in range(nvariants):
        g = np.random.default_rng(rng.u64())
        var = Variant(KINDS[k % len(KINDS)])
        counts = lengths(g, var.kind, case.combos is not None).astype(np.int64)
        before = after = 0
        if var.kind == "sliced":
            before, after = int(g.integers(0, 4)), int(g.integers(0, 4))
        parent = np.concatenate([g.poisson(2.0, before), counts, g.poisson(2.0, after)]).astype(np.int64)
        start, stop = (before, before + len(counts)) if var.kind == "sliced" else (-1, -1)
        shifts = []
        for i, dt in enumerate(case.jagged):
            share = 0 if i > 0 and g.random() < 0.3 else -1
            shift = shifts[0] if share == 0 else int(g.integers(0, 4))
            shifts.append(shift)
            off = np.concatenate([[0], np.cumsum(parent)]).astype(np.int64) + shift
            content = values(g, dt, int(off[-1]) + int(g.integers(0, 3)))
            var.jagged.append((dt, off, content, share, start, stop))
        n = len(counts)
        var.lists = [values(g, dt, n) for dt in case.lists]
        out.append(var)
    return out
