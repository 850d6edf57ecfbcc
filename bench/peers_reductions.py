#!/usr/bin/env python3
"""The Python peers on bench_reductions' workloads, measured the same way (a batch of calls, one
synchronisation), with the copy bandwidth measured in the same run:

    python3 bench/peers_reductions.py

CuPy: unfused `(a*b).sum()` (two kernels; `sum` goes through CUB when its accelerator is on),
`cupy.sum(a)` with CUB, a ReductionKernel and `cupy.fuse` (its fused reduction); PyTorch:
`torch.dot`, `a.sum()`; row/column sums and `x - x.mean(1, keepdims=True)`; a 100-bin histogram.
Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py.
"""
import cupy as cp

import peers_common as common

try:
    import torch
except ImportError:  # optional
    torch = None


def timed(f, reps):
    return common.timed(f, reps)


def row(name, seconds, nbytes, copy_gbps, workload=None, impl=None, size=None):
    """The human-readable line; with workload and impl also the JFROW line run_all.py reads."""
    gbps = nbytes / seconds * 1e-9
    print("%-48s %10.1f us %8.1f GB/s %6.1f %% of copy" % (name, seconds * 1e6, gbps, 100 * gbps / copy_gbps), flush=True)
    if workload and impl:
        common.emit(workload, impl, seconds, nbytes, copy_gbps, size=size, label=name)


def fused_dot(x, y):
    return cp.sum(x * y)


def copy_roof(nbytes):
    src = cp.empty(nbytes // 16, dtype=cp.float64)
    dst = cp.empty_like(src)
    t = timed(lambda: dst.__setitem__(Ellipsis, src), 20)
    return nbytes / t * 1e-9


def main():
    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    if torch is None:
        common.skip("torch", "PyTorch is not installed")
    for e in (20, 24, 27):
        n = 1 << e
        a = cp.random.uniform(-1, 1, n)
        b = cp.random.uniform(-1, 1, n)
        roof = copy_roof(n * 16)
        print("--- n = 2^%d, copy %.0f GB/s (read + write of 16 bytes per element)" % (e, roof))
        reps = 10 if e >= 26 else 50
        cp._core.set_routine_accelerators(["cub"])
        cp._core.set_reduction_accelerators(["cub"])
        row("cupy (a*b).sum() unfused, CUB", timed(lambda: (a * b).sum(), reps), n * 16, roof, "SumOfProducts", "cupy", n)
        row("cupy a.sum(), CUB (8 bytes/elem)", timed(lambda: a.sum(), reps), n * 8, roof, "Sum", "cupy", n)
        cp._core.set_routine_accelerators([])
        cp._core.set_reduction_accelerators([])
        row("cupy (a*b).sum() unfused, no CUB", timed(lambda: (a * b).sum(), reps), n * 16, roof)
        rk = cp.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "jf_dot")
        row("cupy ReductionKernel x*y", timed(lambda: rk(a, b), reps), n * 16, roof, "SumOfProducts", "cupy_kernel", n)
        fused = cp.fuse(fused_dot)
        row("cupy.fuse sum(x*y)", timed(lambda: fused(a, b), 3 if e >= 26 else reps), n * 16, roof, "SumOfProducts", "cupy_fuse", n)
        if torch is not None:
            ta = torch.as_tensor(a, device="cuda")
            tb = torch.as_tensor(b, device="cuda")
            row("torch.dot", timed(lambda: torch.dot(ta, tb), reps), n * 16, roof, "SumOfProducts", "torch", n)
    for m, n in ((4096, 32768), (32768, 4096), (8, 1 << 24), (1100, 1 << 17)):
        x = cp.random.uniform(-1, 1, (m, n)).astype(cp.float32)
        roof = copy_roof(m * n * 4)
        print("--- %d x %d float32, copy %.0f GB/s" % (m, n, roof))
        cp._core.set_routine_accelerators(["cub"])
        cp._core.set_reduction_accelerators(["cub"])
        row("cupy x.sum(1) (CUB)", timed(lambda: x.sum(1), 20), m * n * 4, roof, "RowSums/%dx%d" % (m, n), "cupy")
        row("cupy x.sum(0) (CUB)", timed(lambda: x.sum(0), 20), m * n * 4, roof, "ColumnSums/%dx%d" % (m, n), "cupy")
        if torch is not None:
            tx = torch.as_tensor(x, device="cuda")
            row("torch x.sum(1)", timed(lambda: tx.sum(1), 20), m * n * 4, roof, "RowSums/%dx%d" % (m, n), "torch")
            row("torch x.sum(0)", timed(lambda: tx.sum(0), 20), m * n * 4, roof, "ColumnSums/%dx%d" % (m, n), "torch")
        if m == 4096:
            roof8 = copy_roof(m * n * 8)
            row("cupy x - x.mean(1, keepdims=True)", timed(lambda: x - x.mean(1, keepdims=True), 20), m * n * 8, roof8,
                "CentreRows", "cupy")
            if torch is not None:
                row("torch x - x.mean(1, keepdim=True)", timed(lambda: tx - tx.mean(1, keepdim=True), 20), m * n * 8,
                    roof8, "CentreRows", "torch")
    n = 1 << 27
    h = cp.random.uniform(0, 1, n)
    roof = copy_roof(n * 8)
    row("cupy.histogram(x, 100, (0, 1)) f64 2^27 (8 B/elem)", timed(lambda: cp.histogram(h, 100, (0.0, 1.0)), 5), n * 8, roof,
        "Histogram", "cupy")
    row("cupy.histogram(x*x*2-1, 100, (-1, 1)) unfused", timed(lambda: cp.histogram(h * h * 2 - 1, 100, (-1.0, 1.0)), 5),
        n * 8, roof, "HistogramOfExpression", "cupy")
    row("cupy.histogram(x, 100) (range from min/max)", timed(lambda: cp.histogram(h, 100), 5), n * 8, roof,
        "HistogramAutoRange", "cupy")
    if torch is not None:
        th = torch.as_tensor(h, device="cuda")
        row("torch.histc(x, 100, 0, 1)", timed(lambda: torch.histc(th, 100, 0.0, 1.0), 5), n * 8, roof, "Histogram", "torch")


if __name__ == "__main__":
    main()
