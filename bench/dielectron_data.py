#!/usr/bin/env python3
"""The events of the dielectron benchmark (issue 11) and numpy's answers, in one raw format that
bench/peers_dielectron.py and bench/bench_dielectron.cpp (JF_DIELECTRON_DATA=DIR) both read.

    python3 bench/dielectron_data.py DIR [--small] [--seed S]

For each config X in A, B, C, D it writes little-endian raw files:
  DIR/X_offsets.i64   n + 1 int64, starting at 0 (event e holds electrons offsets[e]:offsets[e+1])
  DIR/X_pt.f32, DIR/X_eta.f32, DIR/X_phi.f32   float32 per electron
  DIR/X_charge.i32    int32 per electron (-1 or +1)
  DIR/X_max.f32 + DIR/X_max_valid.u8        the heaviest pair's mass per event (NaN where invalid:
                                            fewer than 2 electrons)
  DIR/X_max_os.f32 + DIR/X_max_os_valid.u8  the same over opposite-charge pairs only (valid: at
                                            least one such pair)
The mass is the seed's sqrt(2*pt1*pt2*(cosh(eta1-eta2) - cos(phi1-phi2))) evaluated by numpy
element-wise on float32 arrays of materialised pairs in Awkward's order (i < j), as Awkward's cuda
or cpu backend evaluates it, then a per-event max.

Configs: (A) 10M events, Poisson(1.5) electrons; (B) A's events with 0.5 % of them (random
positions) replaced by events of exactly 64 electrons; (C) 2M events, Poisson(8) ("jets");
(D) 299973 events, Poisson(1.4) (the size of the seed's file). pt = 5 + Exponential(scale 20),
eta ~ U(-2.5, 2.5), phi ~ U(-pi, pi), charge -1/+1 with equal odds. --small divides the event
counts by 1000.
"""
import argparse
import json
import os
import time

import numpy as np

CONFIGS = {  # events, mean multiplicity
    "A": (10_000_000, 1.5),
    "B": (10_000_000, 1.5),  # A plus heavy events
    "C": (2_000_000, 8.0),
    "D": (299_973, 1.4),
}
HEAVY_FRACTION, HEAVY_SIZE = 0.005, 64
PAIRS_PER_CHUNK = 1 << 22  # bounds the memory of the materialised pairs


def electrons(rng, m):
    """m electrons: pt, eta, phi (float32), charge (int32)."""
    pt = np.float32(5) + np.float32(20) * rng.standard_exponential(m, dtype=np.float32)
    eta = rng.uniform(-2.5, 2.5, m).astype(np.float32)
    phi = rng.uniform(-np.pi, np.pi, m).astype(np.float32)
    charge = (rng.integers(0, 2, m, dtype=np.int32) * 2 - 1).astype(np.int32)
    return {"pt": pt, "eta": eta, "phi": phi, "charge": charge}


def offsets_of(counts):
    off = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    return off


def poisson_events(rng, n, mean):
    counts = rng.poisson(mean, n).astype(np.int64)
    return offsets_of(counts), electrons(rng, int(counts.sum()))


def with_heavy_events(rng, offsets, fields):
    """B from A: 0.5 % of the events, at random positions, replaced by 64 new electrons each; the
    other events keep A's electrons."""
    counts = np.diff(offsets)
    heavy = np.zeros(len(counts), dtype=bool)
    heavy[rng.choice(len(counts), size=int(round(HEAVY_FRACTION * len(counts))), replace=False)] = True
    counts_b = np.where(heavy, HEAVY_SIZE, counts)
    offsets_b = offsets_of(counts_b)
    new = np.repeat(heavy, counts_b)  # per electron of B: in a heavy event
    kept = np.repeat(~heavy, counts)  # per electron of A: its event is kept
    fresh = electrons(rng, int(new.sum()))
    out = {}
    for name, a in fields.items():
        b = np.empty(int(offsets_b[-1]), dtype=a.dtype)
        b[~new] = a[kept]
        b[new] = fresh[name]
        out[name] = b
    return offsets_b, out


def reference(offsets, f):
    """numpy's answers: per event the max mass over all pairs and over opposite-charge pairs.
    Events are grouped by multiplicity n so that the pairs of n electrons are one (k, n(n-1)/2)
    block of gathers (np.triu_indices: Awkward's lexicographic order)."""
    counts = np.diff(offsets)
    n_events = len(counts)
    best = np.full(n_events, np.nan, dtype=np.float32)
    best_os = np.full(n_events, np.nan, dtype=np.float32)
    valid_os = np.zeros(n_events, dtype=bool)
    pt, eta, phi, charge = f["pt"], f["eta"], f["phi"], f["charge"]
    for n in np.unique(counts[counts >= 2]):
        events = np.flatnonzero(counts == n)
        i, j = np.triu_indices(int(n), 1)
        step = max(1, PAIRS_PER_CHUNK // len(i))
        for k in range(0, len(events), step):
            ev = events[k : k + step]
            s = offsets[ev][:, None]
            a, b = s + i, s + j
            m = np.sqrt(2 * pt[a] * pt[b] * (np.cosh(eta[a] - eta[b]) - np.cos(phi[a] - phi[b])))
            assert m.dtype == np.float32
            best[ev] = m.max(axis=1)
            os_pair = charge[a] != charge[b]
            has = os_pair.any(axis=1)
            best_os[ev] = np.where(has, np.where(os_pair, m, np.float32(-np.inf)).max(axis=1), np.float32(np.nan))
            valid_os[ev] = has
    return best, counts >= 2, best_os, valid_os


def write(out_dir, name, offsets, fields, ref):
    def put(suffix, a):
        np.ascontiguousarray(a).tofile(os.path.join(out_dir, name + "_" + suffix))

    put("offsets.i64", offsets.astype("<i8"))
    for f, ext in (("pt", "f32"), ("eta", "f32"), ("phi", "f32")):
        put(f + "." + ext, fields[f].astype("<f4"))
    put("charge.i32", fields["charge"].astype("<i4"))
    best, valid, best_os, valid_os = ref
    put("max.f32", best.astype("<f4"))
    put("max_valid.u8", valid.astype(np.uint8))
    put("max_os.f32", best_os.astype("<f4"))
    put("max_os_valid.u8", valid_os.astype(np.uint8))


def summary(offsets, ref):
    counts = np.diff(offsets)
    return {
        "events": int(len(counts)),
        "electrons": int(offsets[-1]),
        "pairs": int((counts * (counts - 1) // 2).sum()),
        "max_multiplicity": int(counts.max()) if len(counts) else 0,
        "valid": int(ref[1].sum()),
        "valid_os": int(ref[3].sum()),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--small", action="store_true", help="event counts / 1000 (a quick sanity run)")
    ap.add_argument("--seed", type=int, default=20261125)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    scale = 1000 if args.small else 1
    print(f"dielectron data: seed {args.seed}{' (small)' if args.small else ''} -> {args.dir}", flush=True)
    manifest = {"seed": args.seed, "small": args.small, "configs": {}}
    a = None
    for k, (name, (n, mean)) in enumerate(CONFIGS.items()):
        t0 = time.perf_counter()
        rng = np.random.default_rng([args.seed, k])
        if name == "B":
            offsets, fields = with_heavy_events(rng, *a)
        else:
            offsets, fields = poisson_events(rng, n // scale, mean)
        if name == "A":
            a = (offsets, fields)
        ref = reference(offsets, fields)
        write(args.dir, name, offsets, fields, ref)
        manifest["configs"][name] = summary(offsets, ref)
        print(f"  {name}: {manifest['configs'][name]} ({time.perf_counter() - t0:.1f} s)", flush=True)
    with open(os.path.join(args.dir, "dielectron.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
