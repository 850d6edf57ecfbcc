#!/usr/bin/env python3
"""Writes cartesian_table.txt: Awkward Array's answers for per-list reductions over
ak.cartesian([a, b], axis=1) of two jagged records (muons and electrons, say), the pairs
materialised and ak.argcartesian, and their printing (str, repr and type), for
tests/test_cartesian.cpp.

    build/venv/bin/pip install awkward==2.14.0
    build/venv/bin/python3 tests/data/gen_cartesian_table.py > tests/data/cartesian_table.txt

Each case is thirteen lines: "case <dataset> <op>", then for a and for b the offsets (they need
not start at 0) and the fields pt, eta, phi (float32) and charge (int32) of the elements from
offsets[0] on (the test puts poison before them), then the result's values ("None" for a missing
value; floats with float.hex, exact) and the result's dtype. pt, eta and phi are multiples of 1/4,
so products are exact in float32; sums of the long list's 75000 pairs and the mass (cosh, cos,
sqrt) are compared within a tolerance by the test. A print case ("print_*", "repr_*") has the
text Awkward writes and the type instead of the values and the dtype.
"""
import awkward as ak
import numpy as np

from table_text import text, awkward_result_text

rng = np.random.default_rng(20261128)


def datasets():
    def poisson(n, lam, first=0):
        counts = rng.poisson(lam, n)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first

    def of_counts(counts, first=0):
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first

    yield "poisson", poisson(60, 1.5), poisson(60, 2.0)
    # Lists empty on one side only, on both, and neither.
    yield "one_side", of_counts([0, 3, 2, 0, 0, 1, 4, 0, 2]), of_counts([2, 0, 3, 0, 1, 0, 2, 5, 1])
    yield "shifted", poisson(25, 2, first=5), poisson(25, 1.5, first=3)  # offsets of slices
    yield "all_empty", np.zeros(11, np.int64), np.zeros(11, np.int64)
    yield "one", np.array([0, 4], np.int64), np.array([0, 3], np.int64)
    yield "none", np.array([0], np.int64), np.array([0], np.int64)
    yield "long", of_counts([2, 300, 0, 3]), of_counts([1, 250, 4, 0])  # 75000 pairs in one list


def particles(offsets):
    n = int(offsets[-1] - offsets[0])
    pt = (rng.integers(1, 65, n) / 4).astype(np.float32)
    eta = (rng.integers(-10, 11, n) / 4).astype(np.float32)
    phi = (rng.integers(-12, 13, n) / 4).astype(np.float32)
    charge = rng.choice(np.array([-1, 1], np.int32), n)
    return pt, eta, phi, charge


def records(off, fields):
    """A jagged record whose offsets start at off[0] (a slice's view: the content before is padding)."""
    pad = int(off[0])
    pt, eta, phi, charge = fields
    content = ak.zip({"pt": np.concatenate([np.zeros(pad, np.float32), pt]),
                      "eta": np.concatenate([np.zeros(pad, np.float32), eta]),
                      "phi": np.concatenate([np.zeros(pad, np.float32), phi]),
                      "charge": np.concatenate([np.zeros(pad, np.int32), charge])})
    return ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(off), ak.to_layout(content)))


def mass(a, b):
    return np.sqrt(2 * a.pt * b.pt * (np.cosh(a.eta - b.eta) - np.cos(a.phi - b.phi)))


OPS = {
    "max_mass": lambda a, b, met: ak.max(mass(a, b), axis=-1),
    "max_mass_os": lambda a, b, met: ak.max(mass(a, b)[a.charge != b.charge], axis=-1),
    "min_ptpt": lambda a, b, met: ak.min(a.pt * b.pt, axis=-1),
    "sum_ptpt": lambda a, b, met: ak.sum(a.pt * b.pt, axis=-1),
    "sum_ptpt_os": lambda a, b, met: ak.sum((a.pt * b.pt)[a.charge != b.charge], axis=-1),
    "argmax_exact": lambda a, b, met: ak.argmax(a.pt * b.pt - a.eta, axis=-1),  # ties: the first pair
    "argmin_exact": lambda a, b, met: ak.argmin(a.pt + b.pt, axis=-1),
    "count_pairs": lambda a, b, met: ak.count(a.pt * b.pt, axis=-1),
    "count_ordered": lambda a, b, met: ak.count_nonzero(a.pt > b.pt, axis=-1),
    "any_same_charge": lambda a, b, met: ak.any(a.charge == b.charge, axis=-1),
    "min_dpt_met": lambda a, b, met: ak.min(a.pt - b.pt + met, axis=-1),  # a per-list value
    "sum_all": lambda a, b, met: ak.sum(a.pt * b.pt, axis=None),
    # Materialised (flattened values; the pairs' counts are their own case).
    "pairs_flat": lambda a, b, met: ak.flatten(a.pt * b.pt + a.eta),
    "pairs_counts": lambda a, b, met: ak.num(a.pt, axis=1),
    "pairs_os_flat": lambda a, b, met: ak.flatten((a.pt - b.pt)[a.charge != b.charge]),
    "pairs_os_counts": lambda a, b, met: ak.num((a.pt - b.pt)[a.charge != b.charge], axis=1),
}
# argmin/argmax of masked pairs: the position among the selected pairs (Awkward's order), None where
# none is selected. Appended after every other case (they read no random numbers).
MASKED = {
    "argmax_exact_os": lambda a, b: ak.argmax((a.pt * b.pt - a.eta)[a.charge != b.charge], axis=-1),
    "argmin_exact_os": lambda a, b: ak.argmin((a.pt + b.pt)[a.charge != b.charge], axis=-1),
    "argmax_ptpt_ordered": lambda a, b: ak.argmax((a.pt * b.pt)[a.pt > b.pt], axis=-1),
}
MATERIALISED = {"pairs_flat", "pairs_os_flat", "argcartesian_0", "argcartesian_1"}
# Printing: str() and repr() of ak.cartesian / ak.argcartesian as Awkward 2.14 writes them, with the
# type; appended after every other case (they read no random numbers). A print case's last two
# lines are the text and the type (words separated by one space, as Awkward writes them on one line).
PRINTS = {  # op: (the printed array, str or repr)
    "print_pairs": (lambda mu, el: ak.cartesian([mu.pt, el.pt], axis=1), str),
    "print_records": (lambda mu, el: ak.cartesian([mu, el], axis=1), str),
    "print_mixed": (lambda mu, el: ak.cartesian([mu.charge, el], axis=1), str),
    "print_argpairs": (lambda mu, el: ak.argcartesian([mu, el], axis=1), str),
    "repr_records": (lambda mu, el: ak.cartesian([mu, el], axis=1), repr),
    "repr_argpairs": (lambda mu, el: ak.argcartesian([mu, el], axis=1), repr),
}


def main():
    print(f"# awkward {ak.__version__} numpy {np.__version__} (gen_cartesian_table.py)")
    masked = []
    for name, off_a, off_b in datasets():
        fa, fb = particles(off_a), particles(off_b)
        mu, el = records(off_a, fa), records(off_b, fb)
        n = len(off_a) - 1
        met = (np.arange(n, dtype=np.float32) / 4 - 2).astype(np.float32)
        a, b = ak.unzip(ak.cartesian([mu, el], axis=1))
        results = {op: f(a, b, met) for op, f in OPS.items()}
        i, j = ak.unzip(ak.argcartesian([mu, el], axis=1))
        results["argcartesian_0"] = ak.flatten(i)
        results["argcartesian_1"] = ak.flatten(j)
        for op, r in results.items():
            if name == "long" and op in MATERIALISED:
                continue  # 75000 values: the counts and the reductions check the long list
            emit(name, op, off_a, fa, off_b, fb, *awkward_result_text(r))
        masked.append((name, off_a, fa, off_b, fb, a, b, mu, el))
    for name, off_a, fa, off_b, fb, a, b, mu, el in masked:
        for op, f in MASKED.items():
            emit(name, op, off_a, fa, off_b, fb, *awkward_result_text(f(a, b)))
    for name, off_a, fa, off_b, fb, a, b, mu, el in masked:
        for op, (f, how) in PRINTS.items():
            x = f(mu, el)
            emit(name, op, off_a, fa, off_b, fb, how(x), str(x.type))


def emit(name, op, off_a, fa, off_b, fb, vals, dtype):
    print(f"case {name} {op}")
    for off, f in ((off_a, fa), (off_b, fb)):
        print(text(off))
        for x in f:
            print(text(x))
    print(vals)
    print(dtype)


if __name__ == "__main__":
    main()
