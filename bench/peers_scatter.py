#!/usr/bin/env python3
"""The Python peers of bench_scatter on the same machine: 2^26 float64 values scattered into 2^26
elements by a random permutation and by random indices with duplicates (the same construction as
bench_scatter, not the same numbers), with CuPy (x[p] = v, which wraps out-of-range indices and
lets an arbitrary duplicate win; cupyx.scatter_add) and PyTorch (index_put_, index_add_, which
check the indices on the device). Bandwidth: 24 bytes per value (index, value, element written),
also as a fraction of a device copy of 2^26 doubles timed here.

    cd bench && python3 peers_scatter.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py.
"""
import numpy as np

import peers_common as common

N = 1 << 26


def timed(f, reps=10):
    return common.timed(f, reps)


def report(name, t, copy_gbps, workload=None, impl=None):
    gbps = 24 * N / t * 1e-9
    print(f"{name}: {t * 1e6:.0f} us, {gbps:.0f} GB/s, {gbps / copy_gbps:.2f} of copy", flush=True)
    if workload and impl:
        common.emit(workload, impl, t, 24 * N, copy_gbps, label=name)


def main():
    import cupy as cp
    import cupyx

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    rng = np.random.default_rng(2026)
    index = {"perm": rng.permutation(N).astype(np.int64), "dup": rng.integers(0, N, N).astype(np.int64)}
    x = cp.zeros(N, dtype=cp.float64)
    v = cp.arange(N, dtype=cp.float64)
    y = cp.empty_like(x)
    t = timed(lambda: y.__setitem__(slice(None), x))
    copy_gbps = 16 * N / t * 1e-9
    print(f"device copy: {t * 1e6:.0f} us, {copy_gbps:.0f} GB/s")
    for name, p in index.items():
        pc = cp.asarray(p)
        put, add = ("PutPerm", "AddAtPerm") if name == "perm" else ("PutDup", "AddAtDup")
        report(f"cupy x[p] = v {name}", timed(lambda: x.__setitem__(pc, v)), copy_gbps, put, "cupy")
        report(f"cupy x[p] = v * 2 + 1 {name}", timed(lambda: x.__setitem__(pc, v * 2 + 1)), copy_gbps,
               "SetItemPermExpression" if name == "perm" else None, "cupy")
        report(f"cupyx.scatter_add {name}", timed(lambda: cupyx.scatter_add(x, pc, v)), copy_gbps, add, "cupy")
    try:
        import torch

        xt = torch.zeros(N, dtype=torch.float64, device="cuda")
        vt = torch.arange(N, dtype=torch.float64, device="cuda")
        for name, p in index.items():
            pt = torch.from_numpy(p).cuda()
            put, add = ("PutPerm", "AddAtPerm") if name == "perm" else ("PutDup", "AddAtDup")
            report(f"torch index_put_ {name}", timed(lambda: xt.index_put_((pt,), vt)), copy_gbps, put, "torch")
            report(f"torch index_put_ accumulate {name}", timed(lambda: xt.index_put_((pt,), vt, accumulate=True)),
                   copy_gbps)
            report(f"torch index_add_ {name}", timed(lambda: xt.index_add_(0, pt, vt)), copy_gbps, add, "torch")
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("torch", e)


if __name__ == "__main__":
    main()
