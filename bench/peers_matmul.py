#!/usr/bin/env python3
"""The Python peers of bench_matmul on the same machine: a plain GEMM 8192^3 and the seed's
A (10000 x 5000) @ B (5000 x 7000) then sum(., 0), in float32 and float64, with CuPy, PyTorch
(TF32 off in both: full float32 precision, as jf::matmul) and JAX (jit; highest matmul
precision), each also as its einsum("ij,jk->k") (which sums i out of A first). Seed rows give the
rate of reading A and B once as a fraction of a CuPy device copy of as many bytes (same run).

    cd bench && python3 peers_matmul.py
"""
import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU with CuPy and torch
import time

import peers_reductions  # its timing loop (best of 5 batches, one synchronisation each)

SEED_ELEMENTS = 10000 * 5000 + 5000 * 7000


def timed(f, reps=3):
    return peers_reductions.timed(f, reps)


def copy_gbps(dt):
    import cupy as cp

    src = cp.zeros(SEED_ELEMENTS, dtype=dt)
    dst = cp.empty_like(src)
    t = timed(lambda: cp.copyto(dst, src), 10)
    return 2 * src.nbytes / t * 1e-9  # read and written


def seed_row(name, t, itemsize, copy):
    gbps = SEED_ELEMENTS * itemsize / t * 1e-9
    print(f"{name}: {t * 1e3:.3f} ms, {gbps:.0f} GB/s reading A and B once = {100 * gbps / copy:.1f} % of copy")


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
        t = timed(lambda: a @ b)
        print(f"cupy gemm 8192^3 {dt}: {t * 1e3:.2f} ms, {2 * n**3 / t * 1e-12:.1f} TFLOP/s")
        A = cp.random.default_rng(3).random((10000, 5000)).astype(dt)
        B = cp.random.default_rng(4).random((5000, 7000)).astype(dt)
        seed_row(f"cupy seed matmul+sum {dt}", timed(lambda: cp.sum(A @ B, 0)), A.itemsize, copies[dt])
        seed_row(f"cupy seed einsum {dt}", timed(lambda: cp.einsum("ij,jk->k", A, B), 10), A.itemsize, copies[dt])
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
            t = timed(lambda: a @ b)
            print(f"torch gemm 8192^3 {name}: {t * 1e3:.2f} ms, {2 * n**3 / t * 1e-12:.1f} TFLOP/s")
            A = torch.rand((10000, 5000), dtype=dt, device="cuda")
            B = torch.rand((5000, 7000), dtype=dt, device="cuda")
            seed_row(f"torch seed (A @ B).sum(0) {name}", timed(lambda: (A @ B).sum(0)), A.element_size(), copies[name])
            seed_row(f"torch seed einsum {name}", timed(lambda: torch.einsum("ij,jk->k", A, B), 10), A.element_size(),
                     copies[name])
            del a, b, A, B
            torch.cuda.empty_cache()
    except ImportError:
        print("torch: not installed")
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_default_matmul_precision", "highest")
        import jax.numpy as jnp

        print("jax", jax.__version__, "on", jax.devices()[0])
        matmul_sum = jax.jit(lambda A, B: jnp.sum(A @ B, 0))
        einsum = jax.jit(lambda A, B: jnp.einsum("ij,jk->k", A, B))

        def jax_timed(f, A, B, reps):
            f(A, B).block_until_ready()
            best = None
            for _ in range(5):
                t0 = time.perf_counter()
                for _ in range(reps):
                    r = f(A, B)
                r.block_until_ready()
                t = (time.perf_counter() - t0) / reps
                best = t if best is None else min(best, t)
            return best

        for dt in ("float32", "float64"):
            k1, k2 = jax.random.split(jax.random.PRNGKey(5))
            A = jax.random.uniform(k1, (10000, 5000), dtype=dt)
            B = jax.random.uniform(k2, (5000, 7000), dtype=dt)
            seed_row(f"jax jit sum(A @ B, 0) {dt}", jax_timed(matmul_sum, A, B, 3), A.dtype.itemsize, copies[dt])
            seed_row(f"jax jit einsum {dt}", jax_timed(einsum, A, B, 10), A.dtype.itemsize, copies[dt])
            del A, B
    except ImportError:
        print("jax: not installed")


if __name__ == "__main__":
    main()
