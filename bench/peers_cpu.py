#!/usr/bin/env python3
"""numpy on bench_cpu's workloads (bench/bench_cpu.cpp): the same sizes, the same bytes per row,
the median of a few timed calls. Prints one JSON list of rows {workload, variant, ms, bytes} (bytes 0
for rows counted in samples), read by bench/run_all.py:

    python3 bench/peers_cpu.py > peers.json

numpy runs on one thread (its element-wise loops and reductions do; no BLAS call is timed here).
"""
import json
import statistics
import sys
import time

import numpy as np

N = 1 << 24
SIDE = 4000
GRID = 2000
ROWS = COLS = 4096
KAPPA = np.float32(0.1)


def median_ms(f, repeats=5):
    """The median of `repeats` timed calls after a warm-up call, as bench_cpu's rows."""
    f()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    rng = np.random.default_rng(1)
    rows = []

    def row(workload, ms, nbytes):
        rows.append({"workload": workload, "variant": "numpy", "ms": ms, "bytes": nbytes})
        print("%-18s %10.3f ms" % (workload, ms), file=sys.stderr, flush=True)

    a = rng.uniform(1, 2, N)
    b = rng.uniform(10, 20, N)
    c = rng.uniform(-1, 1, N)
    row("Quadratic", median_ms(lambda: (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a)), 32.0 * N)

    xi = np.arange(-1000, N - 1000, dtype=np.int32)
    row("SquareInt32", median_ms(lambda: xi * xi), 8.0 * N)

    x2 = rng.uniform(-3, 3, (SIDE, SIDE)).astype(np.float32)
    row("Sin2d", median_ms(lambda: np.sin(2 * x2 + 1)), 8.0 * SIDE * SIDE)

    z = np.zeros(N)

    def add_in_place():
        z.__iadd__(1)
    row("AddInPlace", median_ms(add_in_place), 16.0 * N)

    u = rng.uniform(0, 1, (GRID, GRID)).astype(np.float32)
    un = np.zeros_like(u)

    def diffusion():
        un[1:-1, 1:-1] = u[1:-1, 1:-1] + KAPPA * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    row("Diffusion", median_ms(diffusion), 8.0 * (GRID - 2) ** 2)

    row("SumOfProducts", median_ms(lambda: np.sum(a * b)), 16.0 * N)
    m = rng.uniform(-1, 1, (ROWS, COLS))
    row("RowSums", median_ms(lambda: m.sum(1)), 8.0 * ROWS * COLS)
    row("ColumnSums", median_ms(lambda: m.sum(0)), 8.0 * ROWS * COLS)
    row("Histogram", median_ms(lambda: np.histogram(c, 100, (-1.0, 1.0))), 8.0 * N)

    p = rng.permutation(N)
    row("TakeRandom", median_ms(lambda: np.take(b, p)), 24.0 * N)
    kept = int(np.count_nonzero(c > 0))
    row("Mask50", median_ms(lambda: c[c > 0.0]), 8.0 * N + 8.0 * kept)
    ci = (np.arange(N) % 7 - 3).astype(np.int32)
    row("CumsumInt32", median_ms(lambda: np.cumsum(ci)), 12.0 * N)

    # Per-list max of 2^22 Poisson(2) float32 lists: numpy's maximum.reduceat over the non-empty
    # lists (what a numpy user writes without Awkward), the empty ones filled after.
    counts = rng.poisson(2.0, 1 << 22)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    content = rng.uniform(0, 100, int(offsets[-1])).astype(np.float32)
    nonempty = counts > 0

    def list_max():
        out = np.full(len(counts), -np.inf, dtype=np.float32)
        out[nonempty] = np.maximum.reduceat(content * 2, offsets[:-1][nonempty])
        return out
    row("ListMax", median_ms(list_max), 8.0 * len(offsets) + 4.0 * len(content) + 5.0 * len(counts))

    gen = np.random.Generator(np.random.Philox(2026))

    def pi():
        u1 = gen.random(N)
        u2 = gen.random(N)
        return 4 * np.mean(u1 * u1 + u2 * u2 < 1.0)
    ms = median_ms(pi, 3)
    rows.append({"workload": "MonteCarloPi", "variant": "numpy", "ms": ms, "bytes": 0, "samples_per_s": N / (ms * 1e-3)})
    # A small call: the quadratic formula on 1000 float64 (a new array), per call over a batch.
    sa, sb, sc = rng.uniform(1, 2, 1000), rng.uniform(10, 20, 1000), rng.uniform(-1, 1, 1000)

    def small_calls():
        for _ in range(1000):
            (-sb + np.sqrt(sb * sb - 4 * sa * sc)) / (2 * sa)
    rows.append({"workload": "SmallCall", "variant": "numpy", "ms": median_ms(small_calls) / 1000, "bytes": 0})
    print(json.dumps({"numpy": np.__version__, "rows": rows}))


if __name__ == "__main__":
    main()
