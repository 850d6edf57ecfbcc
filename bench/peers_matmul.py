#!/usr/bin/env python3
"""The Python peers of bench_matmul on the same machine: a plain GEMM 8192^3 and the seed's
A (10000 x 5000) @ B (5000 x 7000) then sum(., 0), in float32 and float64, with CuPy and PyTorch
(TF32 off in both: full float32 precision, as jf::matmul), plus each one's einsum of the seed for
reference (what the next step's rewrite aims at).

    cd bench && python3 peers_matmul.py
"""
import peers_reductions  # its timing loop (best of 5 batches, one synchronisation each)


def timed(f, reps=3):
    return peers_reductions.timed(f, reps)


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    for dt in ("float32", "float64"):
        n = 8192
        a = cp.random.default_rng(1).random((n, n)).astype(dt)
        b = cp.random.default_rng(2).random((n, n)).astype(dt)
        t = timed(lambda: a @ b)
        print(f"cupy gemm 8192^3 {dt}: {t * 1e3:.2f} ms, {2 * n**3 / t * 1e-12:.1f} TFLOP/s")
        A = cp.random.default_rng(3).random((10000, 5000)).astype(dt)
        B = cp.random.default_rng(4).random((5000, 7000)).astype(dt)
        t = timed(lambda: cp.sum(A @ B, 0))
        print(f"cupy seed matmul+sum {dt}: {t * 1e3:.2f} ms")
        t = timed(lambda: cp.einsum("ij,jk->k", A, B))
        print(f"cupy seed einsum {dt}: {t * 1e3:.3f} ms")
        del a, b, A, B
        cp.get_default_memory_pool().free_all_blocks()
    try:
        import torch

        torch.backends.cuda.matmul.allow_tf32 = False
        for dt in (torch.float32, torch.float64):
            n = 8192
            a = torch.rand((n, n), dtype=dt, device="cuda")
            b = torch.rand((n, n), dtype=dt, device="cuda")
            t = timed(lambda: a @ b)
            print(f"torch gemm 8192^3 {dt}: {t * 1e3:.2f} ms, {2 * n**3 / t * 1e-12:.1f} TFLOP/s")
            A = torch.rand((10000, 5000), dtype=dt, device="cuda")
            B = torch.rand((5000, 7000), dtype=dt, device="cuda")
            t = timed(lambda: (A @ B).sum(0))
            print(f"torch seed matmul+sum {dt}: {t * 1e3:.2f} ms")
            t = timed(lambda: torch.einsum("ij,jk->k", A, B))
            print(f"torch seed einsum {dt}: {t * 1e3:.3f} ms")
            del a, b, A, B
            torch.cuda.empty_cache()
    except ImportError:
        print("torch: not installed")


if __name__ == "__main__":
    main()
