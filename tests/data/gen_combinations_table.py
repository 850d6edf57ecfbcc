#!/usr/bin/env python3
"""Writes combinations_table.txt: Awkward Array's answers for per-list reductions over
ak.combinations of records (the seeds' dielectron query and relatives), pairs and triples
materialised (ak.argcombinations) and printed (str, repr and type), for
tests/test_combinations.cpp.

    build/venv/bin/pip install awkward
    build/venv/bin/python3 tests/data/gen_combinations_table.py > tests/data/combinations_table.txt

Each case is eight lines: "case <dataset> <op>", the offsets (they need not start at 0), the
fields pt, eta, phi (float32) and charge (int32) of the elements from offsets[0] on (the test puts
poison before them), the result's values ("None" for a missing value;
floats with float.hex, exact) and the result's dtype. pt, eta and phi are multiples of 1/4, so
products and their sums are exact in float32 in any order; the mass (cosh, cos, sqrt) is compared
within a tolerance by the test. A print case ("print_*", "repr_*") has the text Awkward writes and
the type instead of the values and the dtype.
"""
import awkward as ak
import numpy as np

from table_text import text, awkward_result_text

rng = np.random.default_rng(20261125)


def datasets():
    def poisson(n, lam, first=0):
        counts = rng.poisson(lam, n)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64) + first
    yield "poisson", poisson(60, 1.5)
    yield "jets", poisson(30, 8)
    yield "shifted", poisson(25, 2, first=5)  # offsets starting at 5 (a slice's)
    yield "all_empty", np.zeros(11, np.int64)
    yield "singles", np.arange(8, dtype=np.int64)  # every list has one element: no pair
    yield "one", np.array([0, 5], np.int64)
    yield "none", np.array([0], np.int64)
    yield "long", np.array([0, 2, 122, 122, 125], np.int64)  # 7140 pairs in one list


def events(offsets):
    n = int(offsets[-1])
    pt = (rng.integers(1, 65, n) / 4).astype(np.float32)
    eta = (rng.integers(-10, 11, n) / 4).astype(np.float32)
    phi = (rng.integers(-12, 13, n) / 4).astype(np.float32)
    charge = rng.choice(np.array([-1, 1], np.int32), n)
    return pt, eta, phi, charge


def mass(a, b):
    return np.sqrt(2 * a.pt * b.pt * (np.cosh(a.eta - b.eta) - np.cos(a.phi - b.phi)))


OPS = {
    "max_mass": lambda a, b: ak.max(mass(a, b), axis=-1),
    "max_mass_os": lambda a, b: ak.max(mass(a, b)[a.charge != b.charge], axis=-1),
    "sum_ptpt": lambda a, b: ak.sum(a.pt * b.pt, axis=-1),
    "sum_ptpt_os": lambda a, b: ak.sum((a.pt * b.pt)[a.charge != b.charge], axis=-1),
    "argmax_exact": lambda a, b: ak.argmax(a.pt * b.pt - a.eta, axis=-1),  # ties: the first pair
    "argmin_exact": lambda a, b: ak.argmin(a.pt + b.pt, axis=-1),
    "count_ordered": lambda a, b: ak.count_nonzero(a.pt > b.pt, axis=-1),
    "any_same_charge": lambda a, b: ak.any(a.charge == b.charge, axis=-1),
    "min_dpt_met": None,  # per-list value: see below
    "sum_all": lambda a, b: ak.sum(a.pt * b.pt, axis=None),
    # Materialised (flattened values; the pairs' counts are their own case).
    "pairs_flat": lambda a, b: ak.flatten(a.pt * b.pt + a.eta),
    "pairs_counts": lambda a, b: ak.num(a.pt, axis=1),
    "pairs_os_flat": lambda a, b: ak.flatten((a.pt - b.pt)[a.charge != b.charge]),
    "pairs_os_counts": lambda a, b: ak.num((a.pt - b.pt)[a.charge != b.charge], axis=1),
}
TRIPLES = {
    "max_triple_pt": lambda a, b, c: ak.max(a.pt + b.pt + c.pt, axis=-1),
    "sum_triple": lambda a, b, c: ak.sum(a.pt * b.pt - c.eta, axis=-1),
    "argmax_triple": lambda a, b, c: ak.argmax(a.pt - b.pt + c.pt, axis=-1),
}


# argmin/argmax of masked pairs: the position among the selected pairs (Awkward's order), None where
# none is selected. Appended after every other case (they read no random numbers).
MASKED = {
    "argmax_exact_os": lambda a, b: ak.argmax((a.pt * b.pt - a.eta)[a.charge != b.charge], axis=-1),
    "argmin_exact_os": lambda a, b: ak.argmin((a.pt + b.pt)[a.charge != b.charge], axis=-1),
    "argmax_ptpt_ordered": lambda a, b: ak.argmax((a.pt * b.pt)[a.pt > b.pt], axis=-1),
}


# Materialised triples (flattened values, counts, ak.argcombinations(ev, 3)), and printing: str()
# and repr() of ak.combinations / ak.argcombinations as Awkward 2.14 writes them, with the type.
# Appended after every other case (they read no random numbers); a print case's last two lines are
# the text and the type (words separated by one space, as Awkward writes them on one line).
TRIPLES_MATERIALISED = {
    "triples_flat": lambda ev, a, b, c: ak.flatten(a.pt * b.pt - c.eta),
    "triples_counts": lambda ev, a, b, c: ak.num(a.pt, axis=1),
    "argcombinations3_0": lambda ev, a, b, c: ak.flatten(ak.unzip(ak.argcombinations(ev, 3))[0]),
    "argcombinations3_1": lambda ev, a, b, c: ak.flatten(ak.unzip(ak.argcombinations(ev, 3))[1]),
    "argcombinations3_2": lambda ev, a, b, c: ak.flatten(ak.unzip(ak.argcombinations(ev, 3))[2]),
}
PRINTS = {  # op: (the printed array, str or repr)
    "print_pairs": (lambda ev: ak.combinations(ev.pt, 2), str),
    "print_pairs_records": (lambda ev: ak.combinations(ev, 2), str),
    "print_triples": (lambda ev: ak.combinations(ev.pt, 3), str),
    "print_triples_records": (lambda ev: ak.combinations(ev, 3), str),
    "print_argpairs": (lambda ev: ak.argcombinations(ev, 2), str),
    "print_argtriples": (lambda ev: ak.argcombinations(ev, 3), str),
    "repr_pairs": (lambda ev: ak.combinations(ev.pt, 2), repr),
    "repr_triples_records": (lambda ev: ak.combinations(ev, 3), repr),
    "repr_argtriples": (lambda ev: ak.argcombinations(ev, 3), repr),
}


def main():
    print(f"# awkward {ak.__version__} numpy {np.__version__} (gen_combinations_table.py)")
    masked = []
    for name, off in datasets():
        pt, eta, phi, charge = events(off)
        n = len(off) - 1
        content = ak.zip({"pt": pt, "eta": eta, "phi": phi, "charge": charge})
        layout = ak.contents.ListOffsetArray(ak.index.Index64(off), ak.to_layout(ak.Array(ak.zip({"pt": np.concatenate([np.zeros(off[0], np.float32), pt]),
            "eta": np.concatenate([np.zeros(off[0], np.float32), eta]), "phi": np.concatenate([np.zeros(off[0], np.float32), phi]),
            "charge": np.concatenate([np.zeros(off[0], np.int32), charge])}))))
        ev = ak.Array(layout)
        met = (np.arange(n, dtype=np.float32) / 4 - 2).astype(np.float32)
        a, b = ak.unzip(ak.combinations(ev, 2))
        ops = dict(OPS)
        ops["min_dpt_met"] = lambda a, b: ak.min(a.pt - b.pt + met, axis=-1)
        for op, f in ops.items():
            vals, dtype = awkward_result_text(f(a, b))
            emit(name, op, off, pt, eta, phi, charge, vals, dtype)
        i, j = ak.unzip(ak.argcombinations(ev, 2))
        emit(name, "argcombinations_0", off, pt, eta, phi, charge, *awkward_result_text(ak.flatten(i)))
        emit(name, "argcombinations_1", off, pt, eta, phi, charge, *awkward_result_text(ak.flatten(j)))
        t = ak.unzip(ak.combinations(ev, 3))
        for op, f in TRIPLES.items():
            vals, dtype = awkward_result_text(f(*t))
            emit(name, op, off, pt, eta, phi, charge, vals, dtype)
        masked.append((name, off, pt, eta, phi, charge, a, b, ev))
    for name, off, pt, eta, phi, charge, a, b, ev in masked:
        for op, f in MASKED.items():
            emit(name, op, off, pt, eta, phi, charge, *awkward_result_text(f(a, b)))
    for name, off, pt, eta, phi, charge, a, b, ev in masked:
        t = ak.unzip(ak.combinations(ev, 3))
        for op, f in TRIPLES_MATERIALISED.items():
            if name == "long" and op != "triples_counts":
                continue  # 280840 triples: the counts and the print cases check the long list
            emit(name, op, off, pt, eta, phi, charge, *awkward_result_text(f(ev, *t)))
        for op, (f, how) in PRINTS.items():
            x = f(ev)
            emit(name, op, off, pt, eta, phi, charge, how(x), str(x.type))
    # A list of 300 elements (4455100 triples) printed, its fields without random numbers.
    off = np.array([0, 300, 300, 303], np.int64)
    k = np.arange(303)
    pt, eta, phi = ((k % 64 + 1) / 4).astype(np.float32), ((k % 21 - 10) / 4).astype(np.float32), ((k % 25 - 12) / 4).astype(np.float32)
    charge = np.where(k % 3 == 0, -1, 1).astype(np.int32)
    ev = ak.unflatten(ak.zip({"pt": pt, "eta": eta, "phi": phi, "charge": charge}), np.diff(off))
    for op, (f, how) in PRINTS.items():
        x = f(ev)
        emit("wide", op, off, pt, eta, phi, charge, how(x), str(x.type))


def emit(name, op, off, pt, eta, phi, charge, vals, dtype):
    print(f"case {name} {op}")
    print(text(off))
    print(text(pt))
    print(text(eta))
    print(text(phi))
    print(text(charge))
    print(vals)
    print(dtype)


if __name__ == "__main__":
    main()
