#!/usr/bin/env python3
"""The Python peers of bench_indexing on the same machine: x[p] for 2^27 float64 and an identity and
a random int64 permutation p, with CuPy (x[p], which wraps out-of-range indices instead of raising),
cupy.take, PyTorch (x[p], which checks on the device) and JAX (jnp.take inside jit, which clips).

    cd bench && python3 peers_indexing.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py.
"""
import numpy as np

import peers_common as common

N = 1 << 27
WORKLOAD = {"identity": "TakeIdentity", "random": "TakeRandom"}


def timed(f, reps=10, sync=common.cupy_sync):
    return common.timed(f, reps, sync)


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    rng = np.random.default_rng(2026)
    perms = {"identity": np.arange(N, dtype=np.int64), "random": rng.permutation(N).astype(np.int64)}
    copy = common.copy_gbps(8 * N)
    print(f"device copy of 2^27 float64: {copy:.0f} GB/s")
    x = cp.arange(N, dtype=cp.float64)
    for name, p in perms.items():
        pc = cp.asarray(p)
        t = timed(lambda: x[pc])
        print(f"cupy x[p] {name}: {t * 1e6:.0f} us, {24 * N / t * 1e-9:.0f} GB/s")
        common.emit(WORKLOAD[name], "cupy", t, 24 * N, copy, label="cupy x[p] (wraps)")
        t = timed(lambda: cp.sqrt(x[pc] * 2 + 1))
        print(f"cupy sqrt(x[p]*2+1) {name}: {t * 1e6:.0f} us")
        if name == "random":
            common.emit("TakeRandomExpression", "cupy", t, 24 * N, copy, label="cupy sqrt(x[p]*2+1)")
    rows = N // 16
    m = x.reshape(rows, 16)
    pr = cp.asarray(np.random.default_rng(7).permutation(rows).astype(np.int64))
    t = timed(lambda: m[pr])
    print(f"cupy m[p] rows (2^23 x 16 float64, random): {t * 1e6:.0f} us, {(16 * N + 8 * rows) / t * 1e-9:.0f} GB/s")
    common.emit("TakeRowsRandom", "cupy", t, 16 * N + 8 * rows, copy, label="cupy m[p]")
    try:
        import torch

        xt = torch.arange(N, dtype=torch.float64, device="cuda")
        for name, p in perms.items():
            pt = torch.from_numpy(p).cuda()
            t = timed(lambda: xt[pt], 10)
            print(f"torch x[p] {name}: {t * 1e6:.0f} us, {24 * N / t * 1e-9:.0f} GB/s")
            common.emit(WORKLOAD[name], "torch", t, 24 * N, copy, label="torch x[p] (checked)")
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("torch", e)
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        xj = jnp.arange(N, dtype=jnp.float64)
        take = jax.jit(lambda a, i: jnp.take(a, i))
        for name, p in perms.items():
            pj = jnp.asarray(p)
            t = timed(lambda: take(xj, pj), 10, lambda r: r.block_until_ready())
            print(f"jax jit take {name}: {t * 1e6:.0f} us, {24 * N / t * 1e-9:.0f} GB/s")
            common.emit(WORKLOAD[name], "jax_jit", t, 24 * N, copy, label="jax jit jnp.take (clips)")
    except Exception as e:  # noqa: BLE001
        common.skip("jax_jit", e)


if __name__ == "__main__":
    main()
