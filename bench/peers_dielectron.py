#!/usr/bin/env python3
"""The Python peers of bench_dielectron (issue 11) on the data of bench/dielectron_data.py: the mass
of the heaviest electron pair per event, over all pairs and over opposite-charge pairs, for configs
A-D, each variant timed with CUDA events (one warm-up call, then the median of repetitions) and
checked against numpy's answers in DIR:

  numba_seed    Numba-CUDA, thread per event: the seed's kernel, on the offsets and field arrays
                (CuPy arrays) instead of an Awkward array with extensions=[ak.numba.cuda], so that it
                runs without Awkward; the seed's opposite-charge kernel and the same without the
                charge test. As in the seed, each call allocates out = cp.zeros(n) (0, not None, for
                events without a pair), and `2*e1.pt*e2.pt` is evaluated in float64 (Numba types the
                literal 2 as int64), so its values are not numpy's float32 bits.
  numba_f32     Numba-CUDA tuned (not the seed's): the same loops with the max in a register, the
                constant as np.float32(2) (all float32), validity written, buffers preallocated.
  cupy_pairs    CuPy with materialised pairs, the code a CuPy user writes: the event of each
                electron (searchsorted), its partners after it, their running sum (read back: the
                number of pairs), the pair index arrays (searchsorted), the gathers, the mass per
                pair, and the per-event max by cupyx.scatter_max (no sort).
  awkward       Awkward's cuda backend running the seed's code exactly, in a subprocess with
                PYTHONPATH=$JF_AWKWARD_SITE (default /tmp/site274: the seed's awkward==2.7.4,
                awkward-cpp==44) so that it never meets another Awkward; `.ci/gpu-check table` points
                it at the table's Awkward 2.14 (its cuda ak.combinations JIT-compiles with
                numba-cuda-mlir, which .ci/peer-wheels.sh packs for the GPU machine): ak.unzip(ak.combinations(electrons, 2)), np.sqrt(...),
                np.max(axis=-1); the opposite-charge variant masks the pairs (z[e1.charge !=
                e2.charge]). On D; on A only when D's time scaled by the event count is < 20 s (5 s with --quick).
  awkward_numba The seed's Numba kernel with extensions=[ak.numba.cuda] on the Awkward array (D only),
                when ak.numba.cuda works with the installed numba-cuda (else the error is printed,
                and the same loops over indices instead of iterators are tried).
When Awkward's answer on D differs from numpy's, the subprocess also finds the step that differs
(pairs, masses, or the per-event max, each against Awkward's cpu backend) and prints it.

A result passes when its validity equals numpy's and every value is within 1e-4 relative of
numpy's, or, where float32 cancels in cosh(deta) - cos(dphi) (nearby electrons), within the band
any float32 evaluation gives: each term's few-ulp error, 1e-6 * (cosh + |cos|), propagated (the
same rule as bench_dielectron's check).

    python3 bench/dielectron_data.py /tmp/d && python3 bench/peers_dielectron.py /tmp/d

Wheels for the Awkward part (no network on the GPU machine; downloaded where PyPI is reachable):
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site274 .whl274/*.whl
or, for the Awkward of the rest of the table, JF_AWKWARD_SITE=DIR where .ci/peer-wheels.sh's wheels
are installed.
Prints one table (us per call, config x variant) and writes DIR/peers.json; each row is also
printed as a JFROW line (peers_common.py) for bench/run_all.py (workload Dielectron/CONFIG/{all,os};
check_ok false where the result differs from numpy's). JF_PEERS_QUICK=1: fewer repetitions, and
Awkward on D only.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import peers_common as common

CONFIGS = "ABCD"
AWKWARD_SITE = os.environ.get("JF_AWKWARD_SITE", "/tmp/site274")
# Run A only when D's time scaled to A's events is below this. Awkward 2.14's cuda backend scales
# far better than that (H200, 2026-11-30: D 26.5 ms, A 29.6; the estimate from D was 1 s), so A
# runs in --quick too when its estimate is a few seconds (its first call then takes about 7 s).
AWKWARD_A_LIMIT_S = 5.0 if common.quick() else 20.0
AWKWARD_BUDGET_S = 120.0  # no further Awkward variant starts after this
AWKWARD_TIMEOUT_S = 280.0
# JF_PEERS_DEADLINE (seconds since the epoch): the Awkward part starts nothing it cannot finish by then.
DEADLINE = float(os.environ.get("JF_PEERS_DEADLINE", "inf"))


# ---- data and the check ---------------------------------------------------------------------
def load(data_dir, name):
    def read(suffix, dtype):
        return np.fromfile(os.path.join(data_dir, f"{name}_{suffix}"), dtype=dtype)

    d = {"offsets": read("offsets.i64", "<i8")}
    for f in ("pt", "eta", "phi"):
        d[f] = read(f + ".f32", "<f4")
    d["charge"] = read("charge.i32", "<i4")
    for r in ("max", "max_os"):
        d[r] = read(r + ".f32", "<f4")
        d[r + "_valid"] = read(r + "_valid.u8", np.uint8).astype(bool)
    counts = np.diff(d["offsets"])
    d["events"], d["electrons"], d["pairs"] = len(counts), int(d["offsets"][-1]), int((counts * (counts - 1) // 2).sum())
    return d


def band(d, e, os_only):
    """The interval of the event's max mass that any float32 evaluation may give (float64 here)."""
    s, t = int(d["offsets"][e]), int(d["offsets"][e + 1])
    i, j = np.triu_indices(t - s, 1)
    i, j = i + s, j + s
    if os_only:
        keep = d["charge"][i] != d["charge"][j]
        i, j = i[keep], j[keep]
    f = lambda k, idx: d[k][idx].astype(np.float64)  # noqa: E731
    ch = np.cosh(f("eta", i) - f("eta", j))
    c = np.cos(f("phi", i) - f("phi", j))
    x, dx = ch - c, 1e-6 * (ch + np.abs(c))
    w = 2 * f("pt", i) * f("pt", j)
    return (np.sqrt(w * np.maximum(x - dx, 0)) * (1 - 1e-4)).max(), (np.sqrt(w * (x + dx)) * (1 + 1e-4)).max()


def check(d, values, valid, os_only):
    """values, valid: host arrays; valid None for the seed's kernel (no validity: 0 where no pair)."""
    key = "max_os" if os_only else "max"
    ref, ref_valid = d[key], d[key + "_valid"]
    values = np.asarray(values, dtype=np.float32)
    out = {"ok": True, "max_abs": 0.0, "max_rel": 0.0, "beyond_1e-4": 0, "in_band": 0, "errors": []}
    if values.shape != ref.shape:
        out.update(ok=False, errors=[f"{values.shape[0]} results for {ref.shape[0]} events"])
        return out
    if valid is None:  # the seed's out = cp.zeros(n): 0 stays where there is no pair
        wrong = np.flatnonzero(~ref_valid & (values != 0))
        what = "not 0 where numpy has None"
    else:
        wrong = np.flatnonzero(np.asarray(valid, dtype=bool) != ref_valid)
        what = "validity differs from numpy's"
    if len(wrong):
        out["ok"] = False
        out["errors"].append(f"{len(wrong)} events {what} (first: event {wrong[0]})")
    v, r = values[ref_valid].astype(np.float64), ref[ref_valid].astype(np.float64)
    if len(v):
        err = np.abs(v - r)
        rel = np.where(r > 0, err / np.where(r > 0, r, 1), np.where(err > 0, np.inf, 0))
        out["max_abs"], out["max_rel"] = float(np.nan_to_num(err, nan=np.inf).max()), float(np.nan_to_num(rel, nan=np.inf).max())
        far = np.flatnonzero(~(rel <= 1e-4))
        out["beyond_1e-4"] = int(len(far))
        events = np.flatnonzero(ref_valid)[far]
        bad = []
        for e, got in zip(events, values[ref_valid][far]):
            lo, hi = band(d, e, os_only)
            if lo <= got <= hi:
                out["in_band"] += 1
            else:
                bad.append(f"event {e}: {got!r} vs numpy {ref[e]!r} (band [{lo:.7g}, {hi:.7g}])")
        if bad:
            out["ok"] = False
            out["errors"].append(f"{len(bad)} events off: " + "; ".join(bad[:3]))
    return out


def describe(c):
    s = "ok" if c["ok"] else "FAIL"
    s += f" (max abs {c['max_abs']:.3g}, rel {c['max_rel']:.3g}; {c['beyond_1e-4']} beyond 1e-4, {c['in_band']} in the band)"
    return s + ("" if c["ok"] else ": " + " | ".join(c["errors"]))


# ---- timing ---------------------------------------------------------------------------------
def cuda_timed(cp, f, reps, warmup=1):
    """Median over reps of one call between two CUDA events on the current stream, in us."""
    for _ in range(warmup):
        f()
    cp.cuda.get_current_stream().synchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        start.record()
        f()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)
    return statistics.median(times)


# ---- Numba-CUDA: the seed's kernel on offsets + fields ---------------------------------------
cuda = None  # numba.cuda once imported (a module global: Numba's simulator swaps it for tests)


def numba_kernels():
    global cuda
    np.row_stack = np.vstack  # numba-cuda still names it; numpy >= 2.5 removed it
    import numba as nb
    from numba import cuda

    @cuda.jit
    def heaviest_os(offsets, pt, eta, phi, charge, out):  # the seed's, an event = offsets[e]:offsets[e+1]
        thread_idx = cuda.grid(1)
        if thread_idx < out.size:
            start, stop = offsets[thread_idx], offsets[thread_idx + 1]
            for i in range(start, stop):
                for j in range(i + 1, stop):
                    if charge[i] != charge[j]:
                        m = math.sqrt(2 * pt[i] * pt[j] * (math.cosh(eta[i] - eta[j]) - math.cos(phi[i] - phi[j])))
                        if m > out[thread_idx]:
                            out[thread_idx] = m

    @cuda.jit
    def heaviest_all(offsets, pt, eta, phi, charge, out):  # the same without the charge test
        thread_idx = cuda.grid(1)
        if thread_idx < out.size:
            start, stop = offsets[thread_idx], offsets[thread_idx + 1]
            for i in range(start, stop):
                for j in range(i + 1, stop):
                    m = math.sqrt(2 * pt[i] * pt[j] * (math.cosh(eta[i] - eta[j]) - math.cos(phi[i] - phi[j])))
                    if m > out[thread_idx]:
                        out[thread_idx] = m

    @cuda.jit
    def heaviest_f32(offsets, pt, eta, phi, charge, os_only, out, valid):  # tuned: not the seed's
        e = cuda.grid(1)
        if e < out.size:
            start, stop = offsets[e], offsets[e + 1]
            best = np.float32(-np.inf)
            seen = False
            for i in range(start, stop):
                pti, etai, phii, qi = pt[i], eta[i], phi[i], charge[i]
                for j in range(i + 1, stop):
                    if os_only and charge[j] == qi:
                        continue
                    m = math.sqrt(np.float32(2) * pti * pt[j] * (math.cosh(etai - eta[j]) - math.cos(phii - phi[j])))
                    best = max(best, m)
                    seen = True
            out[e] = best
            valid[e] = seen

    return nb, heaviest_all, heaviest_os, heaviest_f32


# ---- CuPy with materialised pairs ----------------------------------------------------------
def materialised_pairs(xp, segment_max, off, pt, eta, phi, charge, os_only):
    """Per event the max mass over its pairs (os_only: opposite-charge pairs), every pair
    materialised as two int64 electron indices in Awkward's order; xp is cupy (numpy for tests)."""
    n, electrons = off.size - 1, pt.size
    k = xp.arange(electrons, dtype=xp.int64)
    event = xp.searchsorted(off[1:], k, side="right")  # the event of each electron
    partners = off[event + 1] - k - 1  # the electrons after it in its event
    ends = xp.cumsum(partners)
    total = int(ends[-1]) if electrons else 0  # read back: the number of pairs
    p = xp.arange(total, dtype=xp.int64)
    first = xp.searchsorted(ends, p, side="right")
    second = first + 1 + (p - (ends[first] - partners[first]))
    m = xp.sqrt(2 * pt[first] * pt[second] * (xp.cosh(eta[first] - eta[second]) - xp.cos(phi[first] - phi[second])))
    if os_only:
        m = xp.where(charge[first] != charge[second], m, xp.float32(-np.inf))
    best = xp.full(n, -np.inf, dtype=xp.float32)
    segment_max(best, event[first], m)
    return best, best > -np.inf  # masses are >= 0: -inf stays only where no pair was seen


# ---- Awkward (subprocess, the one under AWKWARD_SITE) -----------------------------------------
def seed_query(ak, electrons, os_only):
    e1, e2 = ak.unzip(ak.combinations(electrons, 2))
    z_mass = np.sqrt(2 * e1.pt * e2.pt * (np.cosh(e1.eta - e2.eta) - np.cos(e1.phi - e2.phi)))
    if os_only:
        z_mass = z_mass[e1.charge != e2.charge]
    return np.max(z_mass, axis=-1)


def awkward_electrons(ak, d, backend):
    def jagged(a):
        return ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(d["offsets"]), ak.contents.NumpyArray(a)))

    electrons = ak.zip(
        {"pt": jagged(d["pt"]), "eta": jagged(d["eta"]), "phi": jagged(d["phi"]), "charge": jagged(d["charge"])},
        with_name="Momentum4D",
    )
    return ak.to_backend(electrons, backend)


def awkward_main(data_dir, backend):
    """Runs in the subprocess; prints one JSON line of results."""
    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)  # numpy 2.5 on Awkward 2.7.4's shape setting
    import awkward as ak

    results = {"awkward_version": ak.__version__, "rows": []}
    if backend == "cuda":
        import cupy as cp

        sync = lambda: cp.cuda.get_current_stream().synchronize()  # noqa: E731
        timed = lambda f, reps: cuda_timed(cp, f, reps)  # noqa: E731
    else:  # a CPU sanity run of the same code (no GPU)
        sync = lambda: None  # noqa: E731

        def timed(f, reps):
            f()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                f()
                ts.append((time.perf_counter() - t0) * 1e6)
            return statistics.median(ts)

    def host(r):
        r = ak.to_backend(r, "cpu")
        return ak.to_numpy(ak.fill_none(r, np.nan)).astype(np.float32), ~ak.to_numpy(ak.is_none(r))

    d_time, d_events, began = None, 0, time.perf_counter()
    for name in ("D", "A"):
        d = load(data_dir, name)
        if name == "A":
            estimate = d_time * 1e-6 * d["events"] / d_events if d_time else math.inf
            if d_time is None or estimate >= AWKWARD_A_LIMIT_S:
                results["rows"].append({"config": "A", "variant": "awkward_all", "skipped": f"D's time scaled to A: {estimate:.0f} s >= {AWKWARD_A_LIMIT_S:.0f} s"})
                break
        electrons = awkward_electrons(ak, d, backend)
        for os_only in (False, True):
            variant = "awkward_os" if os_only else "awkward_all"
            if time.perf_counter() - began > AWKWARD_BUDGET_S:
                results["rows"].append({"config": name, "variant": variant, "skipped": f"past the {AWKWARD_BUDGET_S:.0f} s budget"})
                continue
            if time.time() > DEADLINE - 60:
                left = DEADLINE - time.time()
                results["rows"].append({"config": name, "variant": variant,
                                        "skipped": f"the run's deadline {left:.0f} s away (< 60 s; a later --deadline gives it time)"})
                continue
            try:
                t0 = time.perf_counter()
                got = seed_query(ak, electrons, os_only)  # warm-up: compiles the kernels
                sync()
                first = time.perf_counter() - t0
                c = check(d, *host(got), os_only)
                reps = max(1, min(5, int(30 / max(first, 1e-3))))
                us = timed(lambda: seed_query(ak, electrons, os_only), reps)
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                why = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
                results["rows"].append({"config": name, "variant": variant, "skipped": "failed: " + why})
                print(f"  awkward {name} {variant}: failed: {why}", file=sys.stderr, flush=True)
                continue
            results["rows"].append({"config": name, "variant": variant, "us": us, "reps": reps, "first_call_s": first, "check": c})
            print(f"  awkward {name} {variant}: {us:.0f} us (median of {reps}; first call {first:.1f} s) {describe(c)}", file=sys.stderr, flush=True)
            if not os_only:
                d_time, d_events = (us, d["events"]) if name == "D" else (d_time, d_events)
                if not c["ok"] and name == "D" and time.time() < DEADLINE - 60:
                    results["diagnosis"] = awkward_diagnosis(ak, d, electrons)
        if name == "D" and backend == "cuda" and time.time() < DEADLINE - 30:
            results["rows"].append(awkward_numba(ak, cp, d, electrons))
    print(json.dumps(results))


def awkward_diagnosis(ak, d, electrons):
    """Which step of the seed's code goes wrong on this backend: the pairs (ak.argcombinations
    against Awkward's cpu backend), the masses (against numpy on the cpu backend's pairs), or the
    per-event max (np.max of the same masses on this backend and on the cpu backend)."""
    out = {}
    try:
        cpu = ak.to_backend(electrons, "cpu")
        g0, g1 = ak.unzip(ak.to_backend(ak.argcombinations(electrons, 2), "cpu"))
        c0, c1 = ak.unzip(ak.argcombinations(cpu, 2))
        ng, nc = ak.to_numpy(ak.num(g0, axis=1)), ak.to_numpy(ak.num(c0, axis=1))
        bad = np.flatnonzero(ng != nc)
        out["pair_counts_differ"] = int(len(bad))
        if len(bad):
            out["first_event_with_other_pair_count"] = int(bad[0])
        else:
            fg = np.stack([ak.to_numpy(ak.flatten(g0)), ak.to_numpy(ak.flatten(g1))])
            fc = np.stack([ak.to_numpy(ak.flatten(c0)), ak.to_numpy(ak.flatten(c1))])
            wrong = np.flatnonzero((fg != fc).any(axis=0))
            out["pair_indices_differ"] = int(len(wrong))
            if len(wrong):
                out["first_event_with_other_pairs"] = int(np.searchsorted(np.cumsum(nc), wrong[0], side="right"))
        e1, e2 = ak.unzip(ak.combinations(electrons, 2))
        z = np.sqrt(2 * e1.pt * e2.pt * (np.cosh(e1.eta - e2.eta) - np.cos(e1.phi - e2.phi)))
        zc = ak.to_backend(z, "cpu")
        c1_, c2_ = ak.unzip(ak.combinations(cpu, 2))
        ref = np.sqrt(2 * c1_.pt * c2_.pt * (np.cosh(c1_.eta - c2_.eta) - np.cos(c1_.phi - c2_.phi)))
        a, b = ak.to_numpy(ak.flatten(zc)), ak.to_numpy(ak.flatten(ref))
        if len(a) == len(b):
            far = np.flatnonzero(~(np.abs(a - b) <= 1e-3 * np.abs(b) + 1e-3))
            out["masses_differ"] = int(len(far))
            if len(far):
                out["first_event_with_other_masses"] = int(np.searchsorted(np.cumsum(ak.to_numpy(ak.num(ref, axis=1))), far[0], side="right"))
        else:
            out["masses_differ"] = f"{len(a)} masses on the device, {len(b)} on the cpu"
        mg = ak.to_backend(np.max(z, axis=-1), "cpu")  # the reduction on the device ...
        mc = np.max(zc, axis=-1)  # ... and on the cpu, of the same masses
        vg, vc = ~ak.to_numpy(ak.is_none(mg)), ~ak.to_numpy(ak.is_none(mc))
        xg, xc = ak.to_numpy(ak.fill_none(mg, np.nan)), ak.to_numpy(ak.fill_none(mc, np.nan))
        wrong = np.flatnonzero((vg != vc) | (vc & (xg != xc)))
        out["device_max_differs_from_cpu_max_of_same_masses"] = int(len(wrong))
        if len(wrong):
            out["first_event_with_other_max"] = int(wrong[0])
            e = int(wrong[0])
            out["that_event"] = {"electrons": int(d["offsets"][e + 1] - d["offsets"][e]), "device_max": str(mg[e]), "cpu_max": str(mc[e])}
    except Exception as e:  # noqa: BLE001 - a diagnosis, reported as far as it got
        out["failed"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    print("  awkward diagnosis on D: " + json.dumps(out), file=sys.stderr, flush=True)
    return out


def awkward_numba(ak, cp, d, electrons):
    """The seed's kernel as written, with extensions=[ak.numba.cuda], on D."""
    row = {"config": "D", "variant": "awkward_numba_os"}
    try:
        np.row_stack = np.vstack
        import numba as nb
        import numba.cuda  # noqa: F401

        ak.numba.register_and_check()

        @nb.cuda.jit(extensions=[ak.numba.cuda])
        def mass_of_heaviest_dielectron(electrons, out):
            thread_idx = nb.cuda.grid(1)
            if thread_idx < len(electrons):
                electrons_in_one_event = electrons[thread_idx]
                for i, e1 in enumerate(electrons_in_one_event):
                    for e2 in electrons_in_one_event[i + 1 :]:
                        if e1.charge != e2.charge:
                            m = math.sqrt(2 * e1.pt * e2.pt * (math.cosh(e1.eta - e2.eta) - math.cos(e1.phi - e2.phi)))
                            if m > out[thread_idx]:
                                out[thread_idx] = m

        @nb.cuda.jit(extensions=[ak.numba.cuda])
        def indexed(electrons, out):  # the same with indices instead of the iterators (not the seed's)
            thread_idx = nb.cuda.grid(1)
            if thread_idx < len(electrons):
                event = electrons[thread_idx]
                for i in range(len(event)):
                    for j in range(i + 1, len(event)):
                        e1, e2 = event[i], event[j]
                        if e1.charge != e2.charge:
                            m = math.sqrt(2 * e1.pt * e2.pt * (math.cosh(e1.eta - e2.eta) - math.cos(e1.phi - e2.phi)))
                            if m > out[thread_idx]:
                                out[thread_idx] = m

        blocks = int(np.ceil(len(electrons) / 1024))
        failures = []
        for label, kernel in (("the seed's kernel", mass_of_heaviest_dielectron), ("indexed loops", indexed)):
            result = {}

            def call():
                out = cp.zeros(len(electrons), dtype=np.float32)
                kernel[blocks, 1024](electrons, out)
                result["out"] = out

            try:
                us = cuda_timed(cp, call, 10)
            except Exception as e:  # noqa: BLE001 - reported, not fatal
                failures.append(f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:240] if str(e) else ''}")
                continue
            row.update(us=us, reps=10, kernel=label, check=check(d, cp.asnumpy(result["out"]), None, True))
            print(f"  awkward+numba D ({label}): {us:.0f} us {describe(row['check'])}", file=sys.stderr, flush=True)
            break
        if failures:
            row["failures"] = failures
            if "us" not in row:
                row["skipped"] = "ak.numba.cuda failed: " + " | ".join(failures)
            print("  awkward+numba D: " + " | ".join(failures), file=sys.stderr, flush=True)
    except Exception as e:  # noqa: BLE001 - reported, not fatal
        row["skipped"] = f"ak.numba.cuda failed: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        print("  awkward+numba D: " + row["skipped"], file=sys.stderr, flush=True)
    return row


def run_awkward(data_dir):
    site = AWKWARD_SITE
    if not os.path.isdir(os.path.join(site, "awkward")):
        return {"rows": [], "error": f"no awkward under {site} (install .whl274/*.whl there, or set JF_AWKWARD_SITE)"}
    env = dict(os.environ, PYTHONPATH=site, PYTHONUNBUFFERED="1")
    limit = max(10.0, min(AWKWARD_TIMEOUT_S, DEADLINE - time.time() - 10))
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--awkward", data_dir], env=env,
                           stdout=subprocess.PIPE, stderr=None, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"rows": [], "error": f"the Awkward subprocess ran past {limit:.0f} s"}
    lines = p.stdout.strip().splitlines()
    if p.returncode or not lines:
        return {"rows": [], "error": f"the Awkward subprocess exited with {p.returncode}"}
    return json.loads(lines[-1])


# ---- main -----------------------------------------------------------------------------------
def impl_of(variant):
    """The column of bench/run_all.py's table: numba_f32_os -> numba, cupy_pairs_all -> cupy, ..."""
    base = variant.rsplit("_", 1)[0]
    return {"numba_f32": "numba", "cupy_pairs": "cupy"}.get(base, base)


def emit(r, nbytes, copy):
    """The JFROW line of one result row (us per call)."""
    os_or_all = r["variant"].rsplit("_", 1)[1]
    common.emit(f"Dielectron/{r['config']}/{os_or_all}", impl_of(r["variant"]), r["us"] * 1e-6, nbytes, copy,
                label=r["variant"], check_ok=r["check"]["ok"])


def main():
    data_dir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/d"
    import cupy as cp
    import cupyx

    props = cp.cuda.runtime.getDeviceProperties(0)
    info = {"device": props["name"].decode(), "cupy": cp.__version__, "numpy": np.__version__}
    try:
        with open(os.path.join(data_dir, "dielectron.json")) as f:
            info["data"] = json.load(f)
    except OSError:
        pass
    src = cp.zeros(1 << 27, dtype=cp.float64)
    dst = cp.empty_like(src)
    copy_us = cuda_timed(cp, lambda: dst.__setitem__(Ellipsis, src), 20)
    info["copy_gbps"] = 2 * src.nbytes / copy_us * 1e-3
    del src, dst
    nb, heaviest_all, heaviest_os, heaviest_f32 = numba_kernels()
    info["numba"] = nb.__version__
    try:
        from importlib.metadata import version

        info["numba_cuda"] = version("numba-cuda")
    except Exception:  # noqa: BLE001
        pass
    print(f"device {info['device']}, copy {info['copy_gbps']:.0f} GB/s; cupy {cp.__version__}, numba {nb.__version__}, "
          f"numba-cuda {info.get('numba_cuda')}, numpy {np.__version__}", flush=True)

    segment_max = getattr(cupyx, "scatter_max", None) or cp.maximum.at
    rows = []

    def record(config, variant, us, c, d, reps):
        bytes_read = 8 * (d["events"] + 1) + 16 * d["electrons"] + 5 * d["events"]
        rows.append({"config": config, "variant": variant, "us": us, "reps": reps, "check": c,
                     "events_per_s": d["events"] / us * 1e6, "pairs_per_s": d["pairs"] / us * 1e6,
                     "of_copy": bytes_read / us * 1e-3 / info["copy_gbps"]})
        emit(rows[-1], bytes_read, info["copy_gbps"])
        print(f"  {config} {variant:<18} {us:10.1f} us  {describe(c)}", flush=True)

    for name in CONFIGS:
        d = load(data_dir, name)
        print(f"{name}: {d['events']} events, {d['electrons']} electrons, {d['pairs']} pairs", flush=True)
        g = {k: cp.asarray(d[k]) for k in ("offsets", "pt", "eta", "phi", "charge")}
        n = d["events"]
        reps = common.quick_reps(5 if name == "B" else 20)
        args = [cuda.as_cuda_array(g[k]) for k in ("offsets", "pt", "eta", "phi", "charge")]
        blocks = max(1, int(np.ceil(n / 1024)))
        for os_only, kernel in ((False, heaviest_all), (True, heaviest_os)):
            res = {}

            def seed_call():  # the seed's code per call: zeros, then the kernel
                out = cp.zeros(n, dtype=np.float32)
                kernel[blocks, 1024](*args, out)
                res["out"] = out

            us = cuda_timed(cp, seed_call, reps)
            record(name, "numba_seed_" + ("os" if os_only else "all"), us, check(d, cp.asnumpy(res["out"]), None, os_only), d, reps)
        out, valid = cp.empty(n, dtype=cp.float32), cp.empty(n, dtype=cp.bool_)
        nb_out, nb_valid = cuda.as_cuda_array(out), cuda.as_cuda_array(valid)
        for os_only in (False, True):
            us = cuda_timed(cp, lambda: heaviest_f32[blocks, 1024](*args, os_only, nb_out, nb_valid), reps)
            record(name, "numba_f32_" + ("os" if os_only else "all"), us, check(d, cp.asnumpy(out), cp.asnumpy(valid), os_only), d, reps)
        for os_only in (False, True):
            res = {}

            def pairs_call():
                res["out"] = materialised_pairs(cp, segment_max, g["offsets"], g["pt"], g["eta"], g["phi"], g["charge"], os_only)

            us = cuda_timed(cp, pairs_call, reps)
            best, valid = res["out"]
            record(name, "cupy_pairs_" + ("os" if os_only else "all"), us, check(d, cp.asnumpy(best), cp.asnumpy(valid), os_only), d, reps)
            del res
        del g, args
        cp.get_default_memory_pool().free_all_blocks()

    print(f"awkward (subprocess, PYTHONPATH={AWKWARD_SITE}):", flush=True)
    ak_out = run_awkward(data_dir)
    if "error" in ak_out:
        print("  awkward: " + ak_out["error"], flush=True)
    info["awkward"] = ak_out.get("awkward_version")
    if "diagnosis" in ak_out:
        info["awkward_diagnosis"] = ak_out["diagnosis"]
        print("  awkward's wrong step on D: " + json.dumps(ak_out["diagnosis"]), flush=True)
    for r in ak_out["rows"]:
        if "us" in r:
            d = {"events": info.get("data", {}).get("configs", {}).get(r["config"], {}).get("events", 0)}
            r.setdefault("events_per_s", d["events"] / r["us"] * 1e6 if d["events"] else None)
            c = load(data_dir, r["config"])
            emit(r, 8 * (c["events"] + 1) + 16 * c["electrons"] + 5 * c["events"], info["copy_gbps"])
        else:
            common.skip(impl_of(r["variant"]), r.get("skipped", "not run"),
                        [f"Dielectron/{r['config']}/{r['variant'].rsplit('_', 1)[1]}"])
        rows.append(r)
    if "error" in ak_out:
        common.skip("awkward", ak_out["error"])

    variants = sorted({r["variant"] for r in rows}, key=lambda v: [r["variant"] for r in rows].index(v))
    print("\nus per call (median; * = check failed, - = not run)")
    print("config " + "".join(f"{v:>18}" for v in variants))
    for name in CONFIGS:
        cells = []
        for v in variants:
            r = next((r for r in rows if r["config"] == name and r["variant"] == v), None)
            if r is None or "us" not in r:
                cells.append("-")
            else:
                cells.append(f"{r['us']:.1f}" + ("" if r["check"]["ok"] else "*"))
        print(f"{name:<7}" + "".join(f"{c:>18}" for c in cells))
    for r in rows:
        if "skipped" in r:
            print(f"{r['config']} {r['variant']}: skipped: {r['skipped']}")
    with open(os.path.join(data_dir, "peers.json"), "w") as f:
        json.dump({"info": info, "rows": rows}, f, indent=1)
    print(f"wrote {os.path.join(data_dir, 'peers.json')}")
    return 0 if all(r.get("check", {"ok": True})["ok"] for r in rows) else 1


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--awkward":
        awkward_main(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "cuda")
    else:
        sys.exit(main())
