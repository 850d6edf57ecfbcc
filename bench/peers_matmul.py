#!/usr/bin/env python3
"""The Python peers of bench_matmul on the same machine: a plain GEMM 8192^3 and the seed's
A (10000 x 5000) @ B (5000 x 7000) then sum(., 0), in float32 and float64, with CuPy, PyTorch
(TF32 off in both: full float32 precision, as jf::matmul) and JAX (jit; highest matmul
precision), each also as its einsum("ij,jk->k") (which sums i out of A first). Seed rows give the
rate of reading A and B once as a fraction of a CuPy device copy of as many bytes (same run).

    cd bench && python3 peers_matmul.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py (GEMM rows: no
bytes; seed rows: A and B read once).
"""
import os
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU with CuPy and torch

import peers_common as common

SEED_ELEMENTS = 10000 * 5000 + 5000 * 7000


def timed(f, reps=3, sync=common.cupy_sync):
    return common.timed(f, reps, sync)


def copy_gbps(dt):
    import cupy as cp

    src = cp.zeros(SEED_ELEMENTS, dtype=dt)
    dst = cp.empty_like(src)
    t = timed(lambda: cp.copyto(dst, src), 10)
    return 2 * src.nbytes / t * 1e-9  # read and written


def seed_row(name, t, itemsize, copy, workload=None, impl=None):
    gbps = SEED_ELEMENTS * itemsize / t * 1e-9
    print(f"{name}: {t * 1e3:.3f} ms, {gbps:.0f} GB/s reading A and B once = {100 * gbps / copy:.1f} % of copy",
          flush=True)
    if workload and impl:
        common.emit(workload, impl, t, SEED_ELEMENTS * itemsize, copy, label=name)


# A GEMM this long is power-bound: its clocks fall as the GPU heats. Every GEMM row, here and in
# bench_matmul.cpp, first runs its call for WARM_SECONDS untimed (the clocks at their steady state).
WARM_SECONDS = 2.0


def warmed(f, sync=common.cupy_sync):
    start = time.perf_counter()
    while time.perf_counter() - start < WARM_SECONDS:
        sync(f())
    return timed(f, sync=sync)


def gemm_row(name, t, n, dt, impl):
    print(f"{name}: {t * 1e3:.2f} ms, {2 * n**3 / t * 1e-12:.1f} TFLOP/s", flush=True)
    common.emit(f"Gemm{n}/{dt}", impl, t, label=name, tflops=2 * n**3 / t * 1e-12)


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    copies = {}
    for dt in ("float32", "float64"):
        copies[dt] = copy_gbps(dt)
        print(f"cupy copy {dt}: {copies[dt]:.0f} GB/s")
        n = 8192
        a = cp.random.default_rng(1).random((n, n)).astype(dt)
        b = cp.random.default_rng(2).random((n, n)).astype(dt)
        gemm_row(f"cupy gemm 8192^3 {dt}", warmed(lambda: a @ b), n, dt, "cupy")
        A = cp.random.default_rng(3).random((10000, 5000)).astype(dt)
        B = cp.random.default_rng(4).random((5000, 7000)).astype(dt)
        seed_row(f"cupy seed matmul+sum {dt}", timed(lambda: cp.sum(A @ B, 0)), A.itemsize, copies[dt],
                 f"SeedSumOfMatmul/{dt}", "cupy")
        seed_row(f"cupy seed einsum {dt}", timed(lambda: cp.einsum("ij,jk->k", A, B), 10), A.itemsize,
                 copies[dt], f"SeedEinsum/{dt}", "cupy")
        del a, b, A, B
        cp.get_default_memory_pool().free_all_blocks()
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        for dt in (torch.float32, torch.float64):
            name = str(dt).replace("torch.", "")
            n = 8192
            a = torch.rand((n, n), dtype=dt, device="cuda")
            b = torch.rand((n, n), dtype=dt, device="cuda")
            gemm_row(f"torch gemm 8192^3 {name}", warmed(lambda: a @ b), n, name, "torch")
            A = torch.rand((10000, 5000), dtype=dt, device="cuda")
            B = torch.rand((5000, 7000), dtype=dt, device="cuda")
            seed_row(f"torch seed (A @ B).sum(0) {name}", timed(lambda: (A @ B).sum(0)), A.element_size(), copies[name],
                     f"SeedSumOfMatmul/{name}", "torch")
            seed_row(f"torch seed einsum {name}", timed(lambda: torch.einsum("ij,jk->k", A, B), 10), A.element_size(),
                     copies[name], f"SeedEinsum/{name}", "torch")
            del a, b, A, B
            torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("torch", e)
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_default_matmul_precision", "highest")
        import jax.numpy as jnp

        print("jax", jax.__version__, "on", jax.devices()[0])
        matmul_sum = jax.jit(lambda A, B: jnp.sum(A @ B, 0))
        einsum = jax.jit(lambda A, B: jnp.einsum("ij,jk->k", A, B))

        def jax_timed(f, A, B, reps):
            return timed(lambda: f(A, B), reps, lambda r: r.block_until_ready())

        for dt in ("float32", "float64"):
            k1, k2 = jax.random.split(jax.random.PRNGKey(5))
            A = jax.random.uniform(k1, (10000, 5000), dtype=dt)
            B = jax.random.uniform(k2, (5000, 7000), dtype=dt)
            seed_row(f"jax jit sum(A @ B, 0) {dt}", jax_timed(matmul_sum, A, B, 3), A.dtype.itemsize, copies[dt],
                     f"SeedSumOfMatmul/{dt}", "jax_jit")
            seed_row(f"jax jit einsum {dt}", jax_timed(einsum, A, B, 10), A.dtype.itemsize, copies[dt],
                     f"SeedEinsum/{dt}", "jax_jit")
            del A, B
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("jax_jit", e)


if __name__ == "__main__":
    main()
