#!/usr/bin/env python3
"""One command, one table (issue 14). Runs jetfuse's benchmarks and the Python peers on identical
workloads in one go and writes bench/results/<machine>-<date>.json, .md (the table) and .png (the
plot).

    python3 bench/run_all.py cpu [--build-dir build/dev]    # anywhere: jetfuse's CPU backend,
                                                            # a hand-written loop, numpy
    python3 bench/run_all.py gpu --build-dir build/cuda --quick   # the GPU machine, ~8 minutes
    python3 bench/run_all.py --selftest                     # the GPU table on made-up rows (ctest)

CPU: each workload's rows come from bench_cpu (jetfuse, hand-written) and peers_cpu.py (numpy) in
the same run, with the bytes each call must move and the fraction of the copy bandwidth measured
first in that run.

GPU: every bench/bench_* program (Google Benchmark JSON) and every bench/peers_*.py (CuPy, PyTorch,
JAX, Numba, Awkward; their JFROW lines, bench/peers_common.py) in one run, joined into one table:
a row per workload (and size), a column per implementation (IMPLS), each cell ms per call and % of
the device copy the row is compared with (the copy its C++ program measured in the same run, else
the peers script's). CPP_ROWS maps the Google Benchmark rows to (workload, impl); PEERS lists the
scripts and their workloads. A script that fails or lacks a library leaves its cells empty, with
the reason in the table's notes; the table is always written. --only REGEX keeps the workloads it
matches; --quick runs fewer repetitions and only the table's rows, with a deadline (480 s).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

import peers_common

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANTS = ["jetfuse", "handwritten", "numpy"]


def run(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:  # say why (e.g. numpy missing from this python), not only that it failed
        sys.exit("run_all.py: %s exited with %d:\n%s" % (" ".join(cmd), done.returncode, done.stderr[-2000:]))
    return done.stdout


def google_benchmark(exe, extra=()):
    """The rows of one Google Benchmark program: name, ms per call and its counters."""
    return parse_google_benchmark(json.loads(run([exe, "--benchmark_format=json", *extra])))


def parse_google_benchmark(out):
    """(context, rows) of Google Benchmark's JSON output: each row its name, ms per call and its
    counters, or its error."""
    rows = []
    for b in out["benchmarks"]:
        if b.get("error_occurred"):
            rows.append({"name": b["name"], "error": b.get("error_message", "")})
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
                "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index", "aggregate_name"}
        # The median batch (timed_batches.hpp's counter) where the program reports it, as the peers
        # do; else Google Benchmark's mean of the iterations.
        ms = b["median_ms"] if isinstance(b.get("median_ms"), (int, float)) else b["real_time"] * scale
        rows.append({"name": b["name"], "ms": ms,
                     "counters": {k: v for k, v in b.items() if k not in skip and isinstance(v, (int, float))}})
    return out.get("context", {}), rows


def cpu_rows(build_dir):
    context, rows = google_benchmark(os.path.join(build_dir, "bench", "bench_cpu"))
    table = []
    copy_gbps = None
    for r in rows:
        if "error" in r:
            continue
        base = r["name"].split("/")[0][len("BM_"):]
        if base == "Copy":
            copy_gbps = r["counters"]["GB/s"]
            continue
        workload, variant = base.rsplit("_", 1)
        table.append({"workload": workload, "variant": variant, "ms": r["ms"], "bytes": r["counters"].get("bytes", 0),
                      "samples_per_s": r["counters"].get("samples/s")})
    peers = json.loads(run([sys.executable, os.path.join(ROOT, "bench", "peers_cpu.py")]))
    table += peers["rows"]
    for r in table:
        if r.get("bytes"):
            r["gbps"] = r["bytes"] / (r["ms"] * 1e-3) * 1e-9
            r["of_copy"] = r["gbps"] / copy_gbps if copy_gbps else None
    info = {"mode": "cpu", "copy_gbps": copy_gbps, "numpy": peers.get("numpy"), "host": context.get("host_name"),
            "cpus": context.get("num_cpus"), "machine": platform.processor() or platform.machine()}
    return info, table


def markdown_cpu(info, table):
    workloads = []
    for r in table:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    cell = {(r["workload"], r["variant"]): r for r in table}
    lines = ["CPU: %s logical CPUs, copy %.1f GB/s (read + written, all threads); numpy %s. ms per call "
             "(%% of the copy bandwidth, counting the bytes a call must move); best in bold."
             % (info.get("cpus"), info.get("copy_gbps") or 0, info.get("numpy")), "",
             "| workload | " + " | ".join(VARIANTS) + " |", "|---|" + "---|" * len(VARIANTS)]
    for w in workloads:
        present = [cell[(w, v)] for v in VARIANTS if (w, v) in cell]
        best = min(r["ms"] for r in present)
        cells = []
        for v in VARIANTS:
            r = cell.get((w, v))
            if r is None:
                cells.append("-")
                continue
            text = "%.2f" % r["ms"] if r["ms"] >= 1 else "%.3g" % r["ms"]
            if r.get("of_copy") is not None:
                text += " (%.0f %%)" % (100 * r["of_copy"])
            elif r.get("samples_per_s"):
                text += " (%.0f M samples/s)" % (r["samples_per_s"] * 1e-6)
            cells.append("**%s**" % text if r["ms"] == best else text)
        lines.append("| %s | %s |" % (w, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def plot_cpu(info, table, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run_all: matplotlib is not installed: no plot", file=sys.stderr)
        return False
    rows = [r for r in table if r.get("of_copy") is not None]
    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    fig, ax = plt.subplots(figsize=(12, 4.5))
    width = 0.8 / len(VARIANTS)
    for k, v in enumerate(VARIANTS):
        ys = [next((100 * r["of_copy"] for r in rows if r["workload"] == w and r["variant"] == v), 0) for w in workloads]
        ax.bar([i + (k - 1) * width for i in range(len(workloads))], ys, width, label=v)
    ax.axhline(100, color="gray", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels(workloads, rotation=30, ha="right")
    ax.set_ylabel("% of the copy bandwidth")
    ax.set_title("CPU (%s logical CPUs, copy %.1f GB/s): jetfuse's CPU backend, a hand-written loop, numpy"
                 % (info.get("cpus"), info.get("copy_gbps") or 0))
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


# ---- the GPU table ------------------------------------------------------------------------------
# The columns, in this order (a column shows only when some row has a cell in it).
IMPLS = [
    ("jetfuse", "jetfuse fused"),
    ("jetfuse_unfused", "jetfuse unfused"),
    ("cuda_handwritten", "hand-written CUDA / CUB / cuBLAS"),
    ("cupy", "CuPy"),
    ("cupy_kernel", "CuPy Elementwise/ReductionKernel"),
    ("cupy_fuse", "cupy.fuse"),
    ("torch", "PyTorch"),
    ("torch_compile", "torch.compile"),
    ("jax_jit", "JAX jit"),
    ("numba", "Numba-CUDA"),
    ("awkward", "Awkward (cuda)"),
    ("awkward_lazy", "Awkward lazy"),
]
IMPL_KEYS = [k for k, _ in IMPLS]

# The rows, in this order, with what each one is (a footnote of the table). Workloads measured at
# several sizes (a "size" in their rows) show the sizes of TABLE_SIZES in the table (all in the JSON
# and the plot).
WORKLOADS = [
    ("Quadratic", "(-b + sqrt(b*b - 4ac)) / (2a), float64, 32 bytes per element"),
    ("Sin", "sin(2x + 1), float32, 8 bytes per element"),
    ("SquareInt32", "x**2 on 5e8 int32 (the Awkward Array x NVIDIA notebook), 8 bytes per element"),
    ("AddOneInPlace", "x += 1 on 1e8 float64 in place (JAX: x + 1 into a donated buffer), 16 bytes per element"),
    ("Diffusion", "the 2000 x 2000 float32 diffusion step written with slices, into a second field; 8 bytes per "
                  "interior element (CuPy Elementwise: the stencil into the strided interior view)"),
    ("SmallCall", "the quadratic formula on 1000 float64, a new output per call: host cost of a cached call"),
    ("SmallCallIntoOutput", "the same assigned into an existing output (jetfuse only)"),
    ("SmallCallHostTime", "the same, host time per call (batches of 100 timed up to the last call's return; the "
                          "device runs them meanwhile); hand-written: an empty kernel's cuLaunchKernel, the floor"),
    ("FirstCall", "first call in a new process: jetfuse with its kernel in the disk cache; the peers with their "
                  "caches as they are (compilation, or its cache's load), each implementation in turn in one "
                  "process, so only the first of a library (CuPy, PyTorch) pays its start-up"),
    ("FirstCallWarmProcess", "jetfuse: the first call of this kernel, from the disk cache, in a new process that "
                             "evaluated another expression first (as CuPy Elementwise, cupy.fuse and torch.compile "
                             "in FirstCall, which run after CuPy's and PyTorch's eager calls)"),
    ("FirstCallCompile", "jetfuse: generate + NVRTC + load a new kernel (no cache)"),
    ("SumOfProducts", "sum(a * b), float64, 16 bytes per element"),
    ("Sum", "sum(a), float64, 8 bytes per element"),
    ("Norm2", "norm(a), float64"),
    ("RowSums/4096x32768", "x.sum(1) of a float32 matrix"),
    ("RowSums/32768x4096", "x.sum(1) of a float32 matrix"),
    ("RowSums/8x16777216", "x.sum(1) of a float32 matrix: few long rows (jetfuse: each row split over the SMs)"),
    ("RowSums/1100x131072", "x.sum(1) of a float32 matrix: rows just past a wave of blocks on a 132-SM GPU (jetfuse: "
                            "split 4 ways)"),
    ("ColumnSums/4096x32768", "x.sum(0) of a float32 matrix"),
    ("ColumnSums/32768x4096", "x.sum(0) of a float32 matrix"),
    ("ColumnSums/8x16777216", "x.sum(0) of a float32 matrix: many short columns"),
    ("ColumnSums/1100x131072", "x.sum(0) of a float32 matrix"),
    ("CentreRows", "x - x.mean(1, keepdims=True), 4096 x 32768 float32"),
    ("Histogram", "histogram(x, 100, range) of 2^27 float64"),
    ("HistogramOfExpression", "histogram(x*x*2 - 1, 100, (-1, 1)) of 2^27 float64"),
    ("HistogramAutoRange", "histogram(x, 100), the range from min/max"),
    ("TakeIdentity", "x[p], 2^27 float64, p the identity (int64); CuPy wraps, JAX clips, torch and jetfuse check"),
    ("TakeIdentityClip", "jf::take(x, p, mode::clip): no bound check"),
    ("TakeRandom", "x[p], 2^27 float64, p a random permutation"),
    ("TakeRandomClip", "jf::take(x, p, mode::clip), random p"),
    ("TakeRandomExpression", "sqrt(x[p] * 2 + 1), random p"),
    ("TakeRowsRandom", "m[p], 2^23 rows of 16 float64, random p"),
    ("CumsumInt32", "cumsum of 2^27 int32 (int64 result)"),
    ("CumsumFloat64", "cumsum of 2^27 float64"),
    ("CumsumExpression", "cumsum(x * 2 + 1), 2^27 float64"),
    ("CumsumRows", "cumsum along rows, 2^13 x 2^14 float64"),
    ("CumsumColumns", "cumsum along columns, 2^14 x 2^13 float64"),
    ("MaskSelect1Percent", "x[mask], 2^27 float64, 1 % true"),
    ("MaskSelect50Percent", "x[mask], 50 % true"),
    ("MaskSelect99Percent", "x[mask], 99 % true"),
    ("PutPerm", "x[p] = v, 2^26 float64, p a permutation"),
    ("PutDup", "x[p] = v, p random with duplicates"),
    ("PutPermClip", "jf::put(x, p, v, mode::clip)"),
    ("PutPermUnique", "jf::put(x, p, v, mode::wrap, unique_indices): the peers' semantics (wrapped, any duplicate "
     "wins); peers repeated from PutPerm"),
    ("SetItemPermExpression", "x[p] = v * 2 + 1, p a permutation"),
    ("SetItemPermExpressionUnique", "jf::put(x, p, v * 2 + 1, mode::wrap, unique_indices); peers repeated"),
    ("AddAtPerm", "add.at(x, p, v) (cupyx.scatter_add, torch index_add_), p a permutation"),
    ("AddAtDup", "add.at(x, p, v), p random with duplicates"),
    ("AddAtPermWrap", "jf::add_at(x, p, v, mode::wrap): cupyx.scatter_add's semantics (no check); peers repeated"),
    ("AddAtDupWrap", "jf::add_at(x, p, v, mode::wrap), p with duplicates; peers repeated"),
    ("PutPermChecked", "PutPerm with numpy's checks on every call: p's memory handed out (raw_data()), so nothing is "
     "remembered about it; peers repeated"),
    ("PutDupChecked", "PutDup, every call checked; peers repeated"),
    ("SetItemPermExpressionChecked", "SetItemPermExpression, every call checked; peers repeated"),
    ("AddAtPermChecked", "AddAtPerm, every call checked; peers repeated"),
    ("AddAtDupChecked", "AddAtDup, every call checked; peers repeated"),
    ("MonteCarloPi", "4 * mean(u^2 + v^2 < 1), 2^30 float64 pairs (no bytes: ms only)"),
    ("MonteCarloPiF32", "the same in float32"),
    ("UniformF32", "uniform float32 into an array of 2^28 (% of a memset, not of a copy)"),
    ("UniformF64", "uniform float64 into an array of 2^27 (% of a memset)"),
    ("MonteCarloPi/philox4x32", "MonteCarloPi with jf::random::philox4x32 (Random123's Philox4x32-10, not numpy's "
     "stream); the peers' cells are their MonteCarloPi measurements, repeated"),
    ("MonteCarloPiF32/philox4x32", "MonteCarloPiF32 with jf::random::philox4x32; peers as in MonteCarloPiF32"),
    ("UniformF32/philox4x32", "UniformF32 with jf::random::philox4x32; peers as in UniformF32"),
    ("SortF32", "sort of 2^27 float32 (ms only)"),
    ("SortI32", "sort of 2^27 int32"),
    ("ArgsortF32", "argsort of 2^27 float32"),
    ("SortRowsF32", "sort of 2^17 rows of 1024 float32"),
    ("ArgsortRowsF32", "argsort of the rows"),
    ("UniqueI32", "unique of 2^27 int32"),
    ("JaggedSortF32", "ak.sort of 10M Poisson(2) lists of float32"),
    ("JaggedSortDescendingF32", "the same, descending"),
    ("JaggedArgsortF32", "ak.argsort of the lists"),
    ("ListSum/poisson", "ak.sum(x, -1), 10M Poisson(2) float32 lists"),
    ("ListMax/poisson", "ak.max(x, -1)"),
    ("ListSumOfExpression/poisson", "ak.sum(x * 2 + 1, -1)"),
    ("FiveOperationPipeline/poisson", "ak.max(sqrt(x*x*2 + met) - 1, -1)"),
    ("ListSum/tail", "ak.sum(x, -1), the long-tailed lists (0.5 % of 64 elements)"),
    ("ListMax/tail", "ak.max(x, -1), long tail"),
    ("ListSumOfExpression/tail", "ak.sum(x * 2 + 1, -1), long tail"),
    ("FiveOperationPipeline/tail", "ak.max(sqrt(x*x*2 + met) - 1, -1), long tail"),
] + [("Dielectron/%s/%s" % (c, o), "heaviest %s electron pair per event, config %s (bench/dielectron_data.py)"
      % ("opposite-charge" if o == "os" else "", c)) for c in "ABCD" for o in ("all", "os")] + [
    ("Gemm8192/float32", "A @ B, 8192^3 float32 (no TF32; ms only)"),
    ("Gemm8192/float64", "A @ B, 8192^3 float64"),
    ("SeedSumOfMatmul/float32", "sum(A @ B, 0), A 10000 x 5000, B 5000 x 7000 (bytes: A and B read once)"),
    ("SeedSumOfMatmul/float64", "the same in float64"),
    ("SeedEinsum/float32", "einsum('ij,jk->k', A, B)"),
    ("SeedEinsum/float64", "the same in float64"),
]
WORKLOAD_ORDER = [w for w, _ in WORKLOADS]
TABLE_SIZES = (1 << 20, 1 << 24, 1 << 27)
QUICK_SIZES = (1 << 20, 1 << 24, 1 << 27)

# Google Benchmark rows -> (workload, impl), per program. A name is the benchmark's name without
# "/iterations:N", "/manual_time" and "/real_time"; "{n}" stands for the size argument of workloads
# measured at several sizes. impl "copy" marks the copy (or memset) a program compares its rows
# with: not a column, but always run (--only and --quick keep it). Rows of a program that are not
# here stay in the JSON (unmapped) and are counted in a footnote.
CPP_ROWS = {
    "bench_elementwise": {
        "BM_Copy/{n}": (None, "copy"),
        "BM_QuadraticFused/{n}": ("Quadratic", "jetfuse"),
        "BM_QuadraticUnfused/{n}": ("Quadratic", "jetfuse_unfused"),
        "BM_QuadraticHandwritten/{n}": ("Quadratic", "cuda_handwritten"),
        "BM_SinFused/{n}": ("Sin", "jetfuse"),
        "BM_SinUnfused/{n}": ("Sin", "jetfuse_unfused"),
        "BM_SinHandwritten/{n}": ("Sin", "cuda_handwritten"),
        "BM_SquareInt32/hand:0": ("SquareInt32", "jetfuse"),
        "BM_SquareInt32/hand:1": ("SquareInt32", "cuda_handwritten"),
        "BM_AddOneInPlace/hand:0": ("AddOneInPlace", "jetfuse"),
        "BM_AddOneInPlace/hand:1": ("AddOneInPlace", "cuda_handwritten"),
        "BM_Diffusion/how:0": ("Diffusion", "jetfuse"),
        "BM_Diffusion/how:1": ("Diffusion", "jetfuse_unfused"),
        "BM_Diffusion/how:2": ("Diffusion", "cuda_handwritten"),
        "BM_SmallCachedCallNewOutput": ("SmallCall", "jetfuse"),
        "BM_SmallCachedCall": ("SmallCallIntoOutput", "jetfuse"),
        "BM_SmallCachedCallHost": ("SmallCallHostTime", "jetfuse"),
        "BM_BareLaunch/host:1": ("SmallCallHostTime", "cuda_handwritten"),
        "BM_DiskCacheLoadNewProcess": ("FirstCall", "jetfuse"),
        "BM_DiskCacheLoadWarmProcess": ("FirstCallWarmProcess", "jetfuse"),
        "BM_FirstCallCompile": ("FirstCallCompile", "jetfuse"),
    },
    "bench_reductions": {
        "BM_CopyDot/{n}": (None, "copy"),
        "BM_DotFused/{n}": ("SumOfProducts", "jetfuse"),
        "BM_DotUnfused/{n}": ("SumOfProducts", "jetfuse_unfused"),
        "BM_SumOnly/{n}": ("Sum", "jetfuse"),
        "BM_Norm2/{n}": ("Norm2", "jetfuse"),
        "BM_CopyMatrix": (None, "copy"),
        "BM_RowSums/4096/32768": ("RowSums/4096x32768", "jetfuse"),
        "BM_RowSums/32768/4096": ("RowSums/32768x4096", "jetfuse"),
        "BM_RowSums/8/16777216": ("RowSums/8x16777216", "jetfuse"),
        "BM_RowSums/1100/131072": ("RowSums/1100x131072", "jetfuse"),
        "BM_ColumnSums/4096/32768": ("ColumnSums/4096x32768", "jetfuse"),
        "BM_ColumnSums/32768/4096": ("ColumnSums/32768x4096", "jetfuse"),
        "BM_ColumnSums/8/16777216": ("ColumnSums/8x16777216", "jetfuse"),
        "BM_ColumnSums/1100/131072": ("ColumnSums/1100x131072", "jetfuse"),
        "BM_CopyCentre": (None, "copy"),
        "BM_CentreRowsFused": ("CentreRows", "jetfuse"),
        "BM_CentreRowsUnfused": ("CentreRows", "jetfuse_unfused"),
        "BM_CopyHistogram": (None, "copy"),
        "BM_Histogram": ("Histogram", "jetfuse"),
        "BM_HistogramOfExpression/0": ("HistogramOfExpression", "jetfuse"),
        "BM_HistogramOfExpression/1": ("HistogramOfExpression", "jetfuse_unfused"),
        "BM_HistogramAutoRange": ("HistogramAutoRange", "jetfuse"),
    },
    "bench_indexing": {
        "BM_CopyRoof": (None, "copy"),
        "BM_TakeIdentity": ("TakeIdentity", "jetfuse"),
        "BM_TakeIdentityUnchecked": ("TakeIdentityClip", "jetfuse"),
        "BM_TakeRandom": ("TakeRandom", "jetfuse"),
        "BM_TakeRandomUnchecked": ("TakeRandomClip", "jetfuse"),
        "BM_TakeFusedRandom": ("TakeRandomExpression", "jetfuse"),
        "BM_TakeUnfusedRandom": ("TakeRandomExpression", "jetfuse_unfused"),
        "BM_TakeRowsRandom": ("TakeRowsRandom", "jetfuse"),
    },
    "bench_scan": {
        "BM_CopyRoof": (None, "copy"),
        "BM_CumsumInt32": ("CumsumInt32", "jetfuse"),
        "BM_CubInclusiveSumInt32": ("CumsumInt32", "cuda_handwritten"),
        "BM_CumsumFloat64": ("CumsumFloat64", "jetfuse"),
        "BM_CubInclusiveSumFloat64": ("CumsumFloat64", "cuda_handwritten"),
        "BM_CumsumFused": ("CumsumExpression", "jetfuse"),
        "BM_CumsumUnfused": ("CumsumExpression", "jetfuse_unfused"),
        "BM_CumsumRows": ("CumsumRows", "jetfuse"),
        "BM_CumsumColumns": ("CumsumColumns", "jetfuse"),
        "BM_MaskSelect1Percent": ("MaskSelect1Percent", "jetfuse"),
        "BM_MaskSelect50Percent": ("MaskSelect50Percent", "jetfuse"),
        "BM_MaskSelect99Percent": ("MaskSelect99Percent", "jetfuse"),
    },
    "bench_scatter": {
        "BM_CopyRoof": (None, "copy"),
        "BM_PutPerm": ("PutPerm", "jetfuse"),
        "BM_PutDup": ("PutDup", "jetfuse"),
        "BM_PutPermClip": ("PutPermClip", "jetfuse"),
        "BM_SetItemPermFused": ("SetItemPermExpression", "jetfuse"),
        "BM_PutPermUnique": ("PutPermUnique", "jetfuse"),
        "BM_PutPermUniqueExpression": ("SetItemPermExpressionUnique", "jetfuse"),
        "BM_AddAtPerm": ("AddAtPerm", "jetfuse"),
        "BM_AddAtDup": ("AddAtDup", "jetfuse"),
        "BM_AddAtPermWrap": ("AddAtPermWrap", "jetfuse"),
        "BM_AddAtDupWrap": ("AddAtDupWrap", "jetfuse"),
        "BM_PutPermChecked": ("PutPermChecked", "jetfuse"),
        "BM_PutDupChecked": ("PutDupChecked", "jetfuse"),
        "BM_SetItemPermFusedChecked": ("SetItemPermExpressionChecked", "jetfuse"),
        "BM_AddAtPermChecked": ("AddAtPermChecked", "jetfuse"),
        "BM_AddAtDupChecked": ("AddAtDupChecked", "jetfuse"),
    },
    "bench_random": {
        "BM_WriteRoof": (None, "copy"),
        "BM_PiFused": ("MonteCarloPi", "jetfuse"),
        "BM_PiGenerateThenReduce": ("MonteCarloPi", "jetfuse_unfused"),
        "BM_PiFusedFloat32": ("MonteCarloPiF32", "jetfuse"),
        "BM_UniformFloat32IntoArray": ("UniformF32", "jetfuse"),
        "BM_UniformFloat64IntoArray": ("UniformF64", "jetfuse"),
        "BM_PiFused4x32": ("MonteCarloPi/philox4x32", "jetfuse"),
        "BM_PiFusedFloat32_4x32": ("MonteCarloPiF32/philox4x32", "jetfuse"),
        "BM_UniformFloat32IntoArray4x32": ("UniformF32/philox4x32", "jetfuse"),
    },
    "bench_sort": {
        "BM_CopyRoof": (None, "copy"),
        "BM_CubSortKeysF32": ("SortF32", "cuda_handwritten"),
        "BM_CubSortKeysI32": ("SortI32", "cuda_handwritten"),
        "BM_CubSegmentedSortRowsF32": ("SortRowsF32", "cuda_handwritten"),
        "BM_SortF32": ("SortF32", "jetfuse"),
        "BM_SortI32": ("SortI32", "jetfuse"),
        "BM_ArgsortF32": ("ArgsortF32", "jetfuse"),
        "BM_SortRowsF32": ("SortRowsF32", "jetfuse"),
        "BM_ArgsortRowsF32": ("ArgsortRowsF32", "jetfuse"),
        "BM_UniqueI32": ("UniqueI32", "jetfuse"),
        "BM_CubSegmentedSortLists": ("JaggedSortF32", "cuda_handwritten"),
        "BM_JaggedSortF32": ("JaggedSortF32", "jetfuse"),
        "BM_JaggedSortDescendingF32": ("JaggedSortDescendingF32", "jetfuse"),
        "BM_JaggedArgsortF32": ("JaggedArgsortF32", "jetfuse"),
    },
    "bench_jagged": {
        "BM_CopyRoof": (None, "copy"),
        "BM_ListSum/0": ("ListSum/poisson", "jetfuse"),
        "BM_ListSum/1": ("ListSum/tail", "jetfuse"),
        "BM_ListMax/0": ("ListMax/poisson", "jetfuse"),
        "BM_ListMax/1": ("ListMax/tail", "jetfuse"),
        "BM_ListSumOfExpression/0": ("ListSumOfExpression/poisson", "jetfuse"),
        "BM_ListSumOfExpression/1": ("ListSumOfExpression/tail", "jetfuse"),
        "BM_FiveOperationPipeline/0": ("FiveOperationPipeline/poisson", "jetfuse"),
        "BM_FiveOperationPipeline/1": ("FiveOperationPipeline/tail", "jetfuse"),
    },
    "bench_dielectron": dict(
        [("BM_CopyRoof", (None, "copy"))]
        + [("%s/%s/%s" % (variant, c, o), ("Dielectron/%s/%s" % (c, o), impl))
           for variant, impl in (("jetfuse_fused", "jetfuse"), ("jetfuse_materialised", "jetfuse_unfused"),
                                 ("handwritten_hybrid", "cuda_handwritten"))
           for c in "ABCD" for o in ("all", "os")]),
    "bench_matmul": dict(
        [("BM_GemmJetfuse/%s/8192" % t, ("Gemm8192/" + t, "jetfuse")) for t in ("float32", "float64")]
        + [("BM_GemmCublas/%s/8192" % t, ("Gemm8192/" + t, "cuda_handwritten")) for t in ("float32", "float64")]
        + [("BM_CopySeedBytes/" + t, (None, "copy")) for t in ("float32", "float64")]
        + [("BM_SeedSumOfMatmul/%s/axis0/0/0" % t, ("SeedSumOfMatmul/" + t, "jetfuse")) for t in ("float32", "float64")]
        + [("BM_SeedMatmulThenSum/" + t, ("SeedSumOfMatmul/" + t, "jetfuse_unfused")) for t in ("float32", "float64")]
        + [("BM_SeedEinsum/%s/0" % t, ("SeedEinsum/" + t, "jetfuse")) for t in ("float32", "float64")]),
    # bench_lists and bench_pairs time jetfuse's list and pairs kernels built from hand-made graphs
    # (schedules, tiles): design measurements, in the JSON, not rows of this table.
    "bench_lists": {},
    "bench_pairs": {},
}

# The Python peers: the workloads each one prints (--only picks the scripts by them) and the
# arguments it takes (DATA: the run's data directory).
PEERS = {
    "peers_elementwise.py": (["Quadratic", "Sin", "SmallCall", "FirstCall", "SquareInt32", "AddOneInPlace", "Diffusion"],
                             []),
    "peers_reductions.py": (["SumOfProducts", "Sum", "RowSums/4096x32768", "RowSums/32768x4096", "RowSums/8x16777216",
                             "RowSums/1100x131072", "ColumnSums/4096x32768", "ColumnSums/32768x4096",
                             "ColumnSums/8x16777216", "ColumnSums/1100x131072", "CentreRows",
                             "Histogram", "HistogramOfExpression", "HistogramAutoRange"], []),
    "peers_indexing.py": (["TakeIdentity", "TakeRandom", "TakeRandomExpression", "TakeRowsRandom"], []),
    "peers_scan.py": (["CumsumInt32", "CumsumFloat64", "CumsumExpression", "CumsumRows", "CumsumColumns",
                       "MaskSelect1Percent", "MaskSelect50Percent", "MaskSelect99Percent"], []),
    "peers_scatter.py": (["PutPerm", "PutDup", "SetItemPermExpression", "AddAtPerm", "AddAtDup"], []),
    "peers_random.py": (["MonteCarloPi", "MonteCarloPiF32", "UniformF32"], []),
    "peers_sort.py": (["SortF32", "SortI32", "ArgsortF32", "SortRowsF32", "ArgsortRowsF32", "UniqueI32",
                       "JaggedSortF32", "JaggedArgsortF32"], []),
    "peers_jagged.py": (["ListSum/poisson", "ListMax/poisson", "ListSumOfExpression/poisson",
                         "FiveOperationPipeline/poisson", "ListSum/tail", "ListMax/tail", "ListSumOfExpression/tail",
                         "FiveOperationPipeline/tail"], ["{jagged}"]),
    "peers_matmul.py": (["Gemm8192/float32", "Gemm8192/float64", "SeedSumOfMatmul/float32", "SeedSumOfMatmul/float64",
                         "SeedEinsum/float32", "SeedEinsum/float64"], []),
    "peers_dielectron.py": (["Dielectron/%s/%s" % (c, o) for c in "ABCD" for o in ("all", "os")], ["{dielectron}"]),
}

# Peers' workloads measured once and shown again under another workload's row (the same work by
# another of jetfuse's variants): the cell is copied, its source says so.
REPEATED_PEER_ROWS = {"MonteCarloPi": ["MonteCarloPi/philox4x32"], "MonteCarloPiF32": ["MonteCarloPiF32/philox4x32"],
                      "UniformF32": ["UniformF32/philox4x32"], "PutPerm": ["PutPermUnique", "PutPermChecked"],
                      "PutDup": ["PutDupChecked"],
                      "SetItemPermExpression": ["SetItemPermExpressionUnique", "SetItemPermExpressionChecked"],
                      "AddAtPerm": ["AddAtPermWrap", "AddAtPermChecked"], "AddAtDup": ["AddAtDupWrap", "AddAtDupChecked"]}


def repeated_peer_cells(cells):
    """Copies of peers' cells for the rows of REPEATED_PEER_ROWS."""
    out = []
    for c in cells:
        for w in REPEATED_PEER_ROWS.get(c["workload"], []):
            out.append(dict(c, workload=w, source=c["source"] + " (repeated from %s)" % c["workload"]))
    return out


# The order of the run: each group's peers script first (peers_jagged.py writes the lists
# bench_jagged reads), then its C++ program; the most asked-for first, so that a run cut by its
# deadline keeps them.
GROUPS = ["elementwise", "reductions", "indexing", "scan", "scatter", "random", "sort", "jagged", "matmul",
          "dielectron", "lists", "pairs"]
# Seconds a group's peers leave before the run's deadline for the group's own program, which runs
# after them (bench_dielectron took 29 s in the 2026-11-30 table; Awkward's part of its peers stops
# at their deadline, so it cannot crowd jetfuse's rows out).
PROGRAM_RESERVE_S = {"dielectron": 45}

SUFFIXES = re.compile(r"/(iterations:\d+|repeats:\d+|manual_time|real_time|process_time|threads:\d+)")


def cpp_key(program, name):
    """(workload, impl, size) of a Google Benchmark row, or None when CPP_ROWS does not list it."""
    rows = CPP_ROWS.get(program, {})
    base = SUFFIXES.sub("", name)
    if base in rows:
        w, impl = rows[base]
        return w, impl, None
    m = re.match(r"^(.*)/(\d+)$", base)
    if m and m.group(1) + "/{n}" in rows:
        w, impl = rows[m.group(1) + "/{n}"]
        return w, impl, int(m.group(2))
    return None


def benchmark_filter(program, only, sizes):
    """A --benchmark_filter regex for `program`: the copies and the mapped rows whose workload
    matches `only` (a regex, or None: all), at `sizes` for sized rows (None: all); None when no filter
    is needed (everything), "" when nothing of the program is wanted."""
    if only is None and sizes is None:
        return None
    parts, wanted = [], False
    for name, (w, impl) in CPP_ROWS.get(program, {}).items():
        if impl != "copy" and only is not None and not re.search(only, w):
            continue
        wanted = wanted or impl != "copy"
        if "{n}" in name:
            head = re.escape(name.replace("/{n}", ""))
            parts.append(head + "/" + ("(%s)" % "|".join(str(n) for n in sizes) if sizes else r"\d+"))
        else:
            parts.append(re.escape(name))
    if not wanted:
        return ""
    return "^(%s)(/|$)" % "|".join(parts)


def size_label(n):
    if n is None:
        return ""
    e = n.bit_length() - 1
    return "2^%d" % e if n == 1 << e else str(n)


def cpp_cells(program, rows):
    """Cells of one program's Google Benchmark rows (google_benchmark's output), its unmapped rows
    and its failed rows."""
    cells, unmapped, failed = [], [], []
    for r in rows:
        key = cpp_key(program, r["name"])
        if "error" in r:
            if key and key[1] != "copy":
                failed.append({"program": program, "name": r["name"], "workload": key[0], "impl": key[1],
                               "size": key[2], "error": r["error"]})
            continue
        if key is None:
            unmapped.append(dict(r, program=program))
            continue
        w, impl, size = key
        c = r["counters"]
        gbps = c.get("GB/s")
        of = c.get("of_copy") or c.get("of_write")
        cells.append({"workload": w, "impl": impl, "size": size, "ms": r["ms"], "source": "%s %s" % (program, r["name"]),
                      "bytes": gbps * 1e9 * r["ms"] * 1e-3 if gbps else None,
                      "roof_gbps": gbps / of if gbps and of else (gbps if impl == "copy" else None),
                      "roof_kind": "memset" if "of_write" in c or (impl == "copy" and program == "bench_random") else "copy"})
    return cells, unmapped, failed


def peers_cells(script, rows):
    return [{"workload": r["workload"], "impl": r["impl"], "size": r.get("size"), "ms": r["ms"],
             "bytes": r.get("bytes"), "roof_gbps": None, "peer_copy_gbps": r.get("copy_gbps"),
             "source": "%s %s" % (script, r.get("label") or ""), "check_ok": r.get("check_ok", True)} for r in rows]


def join(cells):
    """The table: one row per (workload, size) with a cell per impl, the bytes a call must move and
    the copy the row is compared with (the C++ program's, measured for that row; else the peers
    script's), and each cell's GB/s and fraction of it. Returns (rows, notes)."""
    notes = []
    table = {}
    for c in cells:
        if c["impl"] == "copy" or c["workload"] is None:
            continue
        row = table.setdefault((c["workload"], c["size"]), {"workload": c["workload"], "size": c["size"], "cells": {}})
        if c["impl"] in row["cells"]:
            notes.append("%s %s: two cells for %s (%s; %s): the first is shown" % (
                c["workload"], size_label(c["size"]), c["impl"], row["cells"][c["impl"]]["source"], c["source"]))
            continue
        row["cells"][c["impl"]] = dict(c)
    for row in table.values():
        cs = list(row["cells"].values())
        # The bytes of the row: the jetfuse cell's, else any; every cell must agree (1 %).
        counted = [c for c in sorted(cs, key=lambda c: c["impl"] != "jetfuse") if c.get("bytes")]
        row["bytes"] = counted[0]["bytes"] if counted else None
        for c in counted:
            if abs(c["bytes"] - row["bytes"]) > 0.01 * row["bytes"]:
                notes.append("%s %s: %s counts %.4g bytes per call, the row %.4g" % (
                    row["workload"], size_label(row["size"]), c["impl"], c["bytes"], row["bytes"]))
        roofs = [c for c in sorted(cs, key=lambda c: c["impl"] != "jetfuse") if c.get("roof_gbps")]
        peer_roofs = [c["peer_copy_gbps"] for c in cs if c.get("peer_copy_gbps")]
        row["roof_gbps"] = roofs[0]["roof_gbps"] if roofs else (peer_roofs[0] if peer_roofs else None)
        row["roof_kind"] = roofs[0]["roof_kind"] if roofs else "copy"
        for c in cs:
            if row["bytes"] and c["ms"] > 0:
                c["gbps"] = row["bytes"] / (c["ms"] * 1e-3) * 1e-9
                c["of_copy"] = c["gbps"] / row["roof_gbps"] if row["roof_gbps"] else None
        ok = [c for c in cs if c.get("check_ok", True)]
        row["best"] = min(ok, key=lambda c: c["ms"])["impl"] if ok else None

    def order(key):
        w, size = key
        return (WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else len(WORKLOAD_ORDER), w, size or 0)

    return [table[k] for k in sorted(table, key=order)], notes


def cell_text(c, best):
    text = "%.4g" % c["ms"]
    if c.get("of_copy") is not None:
        text += " (%.0f %%)" % (100 * c["of_copy"])
    if not c.get("check_ok", True):
        text += " ✗"
    return "**%s**" % text if best else text


OWN_IMPLS = ("jetfuse", "jetfuse_unfused", "cuda_handwritten")


def percent(gap):
    return "%.2f" % gap if gap < 1 else "%.1f" % gap


def trailing(rows):
    """The rows where jetfuse fused is slower than the fastest peer, or than the bench's own
    hand-written kernel / CUB / cuBLAS call: (against the peers, against its own) lists of text lines,
    each with both times and the gap, so that every table says where jetfuse is not first."""
    names = dict(IMPLS)
    peers, own = [], []
    for r in rows:
        j = r["cells"].get("jetfuse")
        if not j or not j.get("check_ok", True) or j["ms"] <= 0:
            continue
        where = "`%s`%s" % (r["workload"], " " + size_label(r["size"]) if r["size"] else "")
        ranked = [c for k, c in r["cells"].items() if k not in OWN_IMPLS and c.get("check_ok", True) and c["ms"] > 0]
        if ranked:
            best = min(ranked, key=lambda c: c["ms"])
            if j["ms"] > best["ms"]:
                gap = 100 * (j["ms"] / best["ms"] - 1)
                peers.append("- %s: %.4g ms, %s %% behind %s (%.4g)%s" % (
                    where, j["ms"], percent(gap), names[best["impl"]], best["ms"], " (within 1 %)" if gap <= 1 else ""))
        hw = r["cells"].get("cuda_handwritten")
        if hw and hw["ms"] > 0 and j["ms"] > hw["ms"]:
            own.append("- %s: %.4g ms, %s %% behind the bench's own (%.4g)" % (
                where, j["ms"], percent(100 * (j["ms"] / hw["ms"] - 1)), hw["ms"]))
    return peers, own


def markdown_gpu(info, rows, notes):
    shown = [r for r in rows if r["size"] is None or r["size"] in TABLE_SIZES]
    impls = [k for k in IMPL_KEYS if any(k in r["cells"] for r in shown)]
    names = dict(IMPLS)
    lines = ["GPU: %s (%s), %s; %s. ms per call (%% of the device copy measured in the same run, counting the bytes "
             "a call must move; the copy column is the one each row is compared with); best in bold; - not measured "
             "(see the notes); ✗ result differs from numpy's (not ranked)."
             % (info.get("gpu"), info.get("driver", "?"), info.get("date"), info.get("mode_text", "")), "",
             "| workload | size | copy GB/s | " + " | ".join(names[k] for k in impls) + " |",
             "|---|---|---|" + "---|" * len(impls)]
    for r in shown:
        cells = [cell_text(r["cells"][k], k == r["best"]) if k in r["cells"] else "-" for k in impls]
        roof = "%.0f%s" % (r["roof_gbps"], " (memset)" if r["roof_kind"] == "memset" else "") if r["roof_gbps"] else ""
        lines.append("| %s | %s | %s | %s |" % (r["workload"], size_label(r["size"]), roof, " | ".join(cells)))
    peers, own = trailing(shown)
    lines += ["", "Where jetfuse fused is not first against the peers (this run):", ""] + (peers or ["- nowhere"])
    lines += ["", "Where it trails the bench's own hand-written kernel, CUB or cuBLAS call (this run):", ""] + \
        (own or ["- nowhere"])
    lines += ["", "Workloads:", ""]
    described = dict(WORKLOADS)
    for w in sorted({r["workload"] for r in shown}, key=lambda w: WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 999):
        lines.append("- `%s`: %s" % (w, described.get(w, "(not described in run_all.py's WORKLOADS)")))
    if notes:
        lines += ["", "Notes:", ""] + ["%d. %s" % (i + 1, n) for i, n in enumerate(notes)]
    return "\n".join(lines) + "\n"


def plot_gpu(info, rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("run_all: matplotlib is not installed: no plot", file=sys.stderr)
        return False
    # Top: % of the copy per workload (sized workloads at their largest size) per impl. Bottom: % of
    # the copy against the size of the sized workloads, a line per (workload, impl).
    largest = {}
    for r in rows:  # rows without bytes or a copy to compare with (Norm2) have no percentage to plot
        if r["size"] is not None and r["bytes"] and r["roof_gbps"] and r["size"] > largest.get(r["workload"], 0):
            largest[r["workload"]] = r["size"]
    bars = [r for r in rows if r["bytes"] and r["roof_gbps"] and (r["size"] is None or r["size"] == largest.get(r["workload"]))]
    impls = [k for k in IMPL_KEYS if any(k in r["cells"] for r in rows)]
    color = {k: plt.get_cmap("tab20")(i % 20) for i, k in enumerate(IMPL_KEYS)}  # one colour per column
    sized = [w for w in WORKLOAD_ORDER if w in largest] + sorted(w for w in largest if w not in WORKLOAD_ORDER)
    fig = plt.figure(figsize=(max(12, 0.45 * len(bars)), 10))
    grid = fig.add_gridspec(2, max(1, len(sized)), height_ratios=[3, 2])
    ax = fig.add_subplot(grid[0, :])
    width = 0.85 / max(1, len(impls))
    for k, impl in enumerate(impls):
        ys = [100 * (r["cells"][impl].get("of_copy") or 0) if impl in r["cells"] else 0 for r in bars]
        ax.bar([i + (k - (len(impls) - 1) / 2) * width for i in range(len(bars))], ys, width, label=dict(IMPLS)[impl],
               color=color[impl])
    ax.axhline(100, color="gray", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels(["%s %s" % (r["workload"], size_label(r["size"])) for r in bars], rotation=60, ha="right",
                       fontsize=7)
    ax.set_ylabel("% of the device copy")
    ax.set_title("%s, %s: bandwidth per workload and implementation (sized workloads at their largest size)"
                 % (info.get("gpu"), info.get("date")))
    if impls:
        ax.legend(fontsize=7, ncol=4)
    for k, w in enumerate(sized):
        ax = fig.add_subplot(grid[1, k])
        for impl in impls:
            pts = sorted((r["size"], 100 * r["cells"][impl]["of_copy"]) for r in rows
                         if r["workload"] == w and r["size"] and impl in r["cells"] and r["cells"][impl].get("of_copy"))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color[impl], label=dict(IMPLS)[impl])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("elements")
        ax.set_title(w, fontsize=9)
        if k == 0:
            ax.set_ylabel("% of the device copy")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[0]
        name, driver = [s.strip() for s in out.split(",")[:2]]
        return name, driver
    except (OSError, IndexError, ValueError, subprocess.SubprocessError):
        return "gpu", "?"


class Deadline:
    def __init__(self, seconds):
        self.end = time.time() + seconds if seconds else math.inf

    def left(self):
        return self.end - time.time()


def run_step(cmd, deadline, cap, env=None, cwd=None):
    """(returncode, stdout, stderr, seconds) of one command, killed at min(cap, the deadline)."""
    limit = max(1.0, min(cap, deadline.left()))
    print("+ " + " ".join(cmd) + "   (limit %.0f s)" % limit, file=sys.stderr, flush=True)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit, env=env, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return "timeout after %.0f s" % limit, out, err, time.time() - t0


def last_line(text):
    lines = [l for l in (text or "").strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


def gpu_results(build_dir, only, quick, deadline, data_dir):
    """Runs the programs and the peers; returns (cells, log): the cells, and per step its
    program or script, return code, seconds and the notes the table prints."""
    cells, unmapped, failed, notes, steps = [], [], [], [], []
    env = dict(os.environ, JF_JAGGED_DATA=os.path.join(data_dir, "jagged"),
               JF_DIELECTRON_DATA=os.path.join(data_dir, "dielectron"), PYTHONUNBUFFERED="1")
    if quick:
        env["JF_PEERS_QUICK"] = "1"
    if deadline.end != math.inf:
        env["JF_PEERS_DEADLINE"] = str(deadline.end - 30)
    cap = 300 if quick else 900
    for group in GROUPS:
        script = "peers_%s.py" % group
        program = "bench_" + group
        wanted = [w for w in PEERS.get(script, ([], []))[0] if only is None or re.search(only, w)]
        if group == "dielectron" and (wanted or benchmark_filter(program, only, None) != ""):
            out_dir = env["JF_DIELECTRON_DATA"]
            if not os.path.exists(os.path.join(out_dir, "dielectron.json")):  # ~1 min; kept between runs
                rc, out, err, s = run_step([sys.executable, os.path.join(ROOT, "bench", "dielectron_data.py"), out_dir],
                                           deadline, cap)
                steps.append({"step": "dielectron_data.py", "rc": rc, "s": s})
                if rc != 0:
                    notes.append("bench/dielectron_data.py failed (%s): %s" % (rc, last_line(err)))
        if script in PEERS and wanted:
            if deadline.left() < 20:
                notes.append("%s: not run (the run's deadline)" % script)
            else:
                args = [a.format(jagged=env["JF_JAGGED_DATA"], dielectron=env["JF_DIELECTRON_DATA"])
                        for a in PEERS[script][1]]
                peers_env = env
                if "JF_PEERS_DEADLINE" in env and group in PROGRAM_RESERVE_S:
                    peers_env = dict(env, JF_PEERS_DEADLINE=str(float(env["JF_PEERS_DEADLINE"]) - PROGRAM_RESERVE_S[group]))
                rc, out, err, s = run_step([sys.executable, os.path.join(ROOT, "bench", script), *args], deadline, cap,
                                           env=peers_env, cwd=os.path.join(ROOT, "bench"))
                rows, skips = peers_common.parse(out)
                steps.append({"step": script, "rc": rc, "s": s, "rows": len(rows), "stdout": out[-20000:],
                              "stderr": err[-4000:]})
                mine = peers_cells(script, rows)
                cells += [c for c in mine + repeated_peer_cells(mine) if only is None or re.search(only, c["workload"])]
                for sk in skips:
                    notes.append("%s: %s not measured%s: %s" % (script, sk["impl"], " (%s)" % ", ".join(sk["workloads"])
                                                                if sk.get("workloads") else "", sk["reason"]))
                if rc != 0:
                    notes.append("%s exited with %s after %d rows: %s" % (script, rc, len(rows),
                                                                          last_line(err) or last_line(out)))
        exe = os.path.join(build_dir, "bench", program)
        filt = benchmark_filter(program, only, QUICK_SIZES if quick else None)
        if quick and not any(impl != "copy" for _, impl in CPP_ROWS.get(program, {}).values()):
            filt = ""  # design benchmarks: not in the quick table
        if filt == "":
            continue
        if not os.access(exe, os.X_OK):
            notes.append("%s: not built in %s" % (program, build_dir))
            continue
        if deadline.left() < 20:
            notes.append("%s: not run (the run's deadline)" % program)
            continue
        cmd = [exe, "--benchmark_format=json"] + (["--benchmark_filter=" + filt] if filt else [])
        rc, out, err, s = run_step(cmd, deadline, cap, env=env)
        steps.append({"step": program, "rc": rc, "s": s, "stderr": err[-4000:]})
        try:
            start = out.index("{")
            rows = parse_google_benchmark(json.loads(out[start:]))[1]
        except ValueError:
            notes.append("%s exited with %s and no JSON: %s" % (program, rc, last_line(err)))
            continue
        if rc != 0:
            notes.append("%s exited with %s: %s" % (program, rc, last_line(err)))
        c, u, f = cpp_cells(program, rows)
        cells += [x for x in c if only is None or x["workload"] is None or re.search(only, x["workload"])]
        unmapped += u
        failed += f
    by_error = {}
    for f in failed:  # one note per program and message
        by_error.setdefault((f["program"], f["error"][:200]), []).append(SUFFIXES.sub("", f["name"]))
    for (program, error), names in by_error.items():
        notes.append("%s: %d row%s failed (%s%s): %s" % (program, len(names), "s" if len(names) > 1 else "",
                                                        ", ".join(names[:4]), ", ..." if len(names) > 4 else "", error))
    if unmapped:
        notes.append("%d rows of the C++ programs are not columns of this table (CPP_ROWS): in the JSON, "
                     "\"unmapped\"" % len(unmapped))
    return cells, {"steps": steps, "unmapped": unmapped, "failed": failed, "notes": notes}

def gpu_table(a, build_dir):
    """Runs the GPU table; returns (stem, markdown, plotted)."""
    t0 = time.time()
    deadline = Deadline(a.deadline if a.deadline is not None else (480 if a.quick else 0))
    gpu, driver = gpu_name()
    stamp = datetime.date.today().isoformat()
    cells, log = gpu_results(build_dir, a.only, a.quick, deadline, a.data_dir)
    rows, join_notes = join(cells)
    info = {"mode": "gpu", "gpu": gpu, "driver": driver, "date": stamp, "quick": a.quick, "only": a.only,
            "mode_text": "`run_all.py gpu%s%s`" % (" --quick" if a.quick else "", " --only '%s'" % a.only if a.only else ""),
            "host": platform.node(), "build_dir": build_dir}
    md = markdown_gpu(info, rows, log["notes"] + join_notes)
    info["wall_s"] = time.time() - t0
    stem = os.path.join(a.out_dir, "%s-%s" % (gpu.replace(" ", "-"), stamp))
    with open(stem + ".json", "w") as f:
        json.dump({"info": info, "rows": rows, "notes": log["notes"] + join_notes, "steps": log["steps"],
                   "unmapped": log["unmapped"], "failed": log["failed"]}, f, indent=1)
    plotted = plot_gpu(info, rows, stem + ".png")
    for st in log["steps"]:
        print("  %-24s %6.1f s  rc %s" % (st["step"], st["s"], st["rc"]), file=sys.stderr)
    print("run_all gpu: %.0f s in all" % (time.time() - t0), file=sys.stderr)
    return stem, md, plotted


def selftest():
    """The GPU table's joining and formatting on made-up rows (no GPU, no program run): what ctest's
    bench_run_all_selftest runs. Exits non-zero on the first wrong value."""
    def gb(name, ms, **counters):
        return {"name": name, "ms": ms, "counters": counters}

    # Every bench/*.py still parses (the peers run only on the GPU machine).
    import glob

    for script in sorted(glob.glob(os.path.join(ROOT, "bench", "*.py"))):
        with open(script) as f:
            compile(f.read(), script, "exec")  # raises SyntaxError
    # The mapping: every row names a described workload and a column.
    for program, rows in CPP_ROWS.items():
        for name, (w, impl) in rows.items():
            assert impl == "copy" or (impl in IMPL_KEYS and w in WORKLOAD_ORDER), (program, name, w, impl)
    for script, (workloads, _) in PEERS.items():
        assert os.path.exists(os.path.join(ROOT, "bench", script)), script
        for w in workloads:
            assert w in WORKLOAD_ORDER, (script, w)
    assert cpp_key("bench_elementwise", "BM_QuadraticFused/134217728/iterations:10/manual_time") == \
        ("Quadratic", "jetfuse", 1 << 27)
    assert cpp_key("bench_reductions", "BM_RowSums/4096/32768/iterations:10/manual_time") == \
        ("RowSums/4096x32768", "jetfuse", None)
    assert cpp_key("bench_dielectron", "jetfuse_fused/C/os/iterations:5/manual_time") == ("Dielectron/C/os", "jetfuse", None)
    assert cpp_key("bench_elementwise", "BM_Unknown/1") is None
    f = benchmark_filter("bench_elementwise", "^Quadratic$", (1 << 20,))
    assert re.search(f, "BM_QuadraticFused/1048576/iterations:10/manual_time")
    assert re.search(f, "BM_Copy/1048576/iterations:10/manual_time")
    assert not re.search(f, "BM_QuadraticFused/134217728/iterations:10/manual_time")
    assert not re.search(f, "BM_SinFused/1048576/iterations:10/manual_time")
    assert not re.search(f, "BM_SmallCachedCall/iterations:20/manual_time")
    assert benchmark_filter("bench_sort", "^Quadratic$", None) == ""
    assert benchmark_filter("bench_sort", None, None) is None

    n = 1 << 27
    elementwise = [gb("BM_Copy/%d/iterations:10/manual_time" % n, 0.6, **{"GB/s": 3578.0}),
                   gb("BM_QuadraticFused/%d/iterations:10/manual_time" % n, 1.2, **{"GB/s": 32 * n / 1.2e6,
                                                                                   "of_copy": 32 * n / 1.2e6 / 3578.0}),
                   gb("BM_QuadraticHandwritten/%d/iterations:10/manual_time" % n, 1.1, **{"GB/s": 32 * n / 1.1e6}),
                   {"name": "BM_SinFused/%d/iterations:10/manual_time" % n, "error": "no CUDA GPU on this machine"},
                   gb("BM_SmallCachedCallNewOutput/iterations:20/manual_time", 0.004),
                   gb("BM_NotInTheTable/iterations:20/manual_time", 1.0)]
    cells, unmapped, failed = cpp_cells("bench_elementwise", elementwise)
    assert [u["name"] for u in unmapped] == ["BM_NotInTheTable/iterations:20/manual_time"], unmapped
    assert [(x["workload"], x["impl"]) for x in failed] == [("Sin", "jetfuse")], failed
    peer_out = "\n".join([
        "cupy Quadratic 2^27 ... (a human line)",
        peers_common.ROW_PREFIX + json.dumps({"workload": "Quadratic", "size": n, "impl": "cupy", "ms": 1.0,
                                              "bytes": 32.0 * n, "copy_gbps": 3000.0, "label": "cupy"}),
        peers_common.ROW_PREFIX + json.dumps({"workload": "Quadratic", "size": n, "impl": "numba", "ms": 4.0,
                                              "bytes": 32.0 * n, "copy_gbps": 3000.0}),
        peers_common.ROW_PREFIX + json.dumps({"workload": "SmallCall", "size": None, "impl": "jax_jit", "ms": 0.04,
                                              "bytes": None, "copy_gbps": None}),
        peers_common.ROW_PREFIX + json.dumps({"workload": "Dielectron/A/all", "impl": "awkward", "ms": 0.5,
                                              "bytes": 1e9, "copy_gbps": 2000.0, "check_ok": False}),
        peers_common.ROW_PREFIX + json.dumps({"workload": "Dielectron/A/all", "impl": "numba", "ms": 0.9,
                                              "bytes": 1e9, "copy_gbps": 2000.0}),
        peers_common.ROW_PREFIX + '{"workload": "cut by a cra',
        peers_common.SKIP_PREFIX + json.dumps({"impl": "torch", "workloads": None, "reason": "ImportError: no torch"}),
    ])
    rows, skips = peers_common.parse(peer_out)
    assert len(rows) == 5 and skips[0]["impl"] == "torch", (rows, skips)
    table, notes = join(cells + peers_cells("peers_elementwise.py", rows))
    assert [(r["workload"], r["size"]) for r in table] == [("Quadratic", n), ("SmallCall", None), ("Dielectron/A/all", None)]
    q = table[0]
    assert q["best"] == "cupy" and abs(q["bytes"] - 32 * n) < 1 and abs(q["roof_gbps"] - 3578.0) < 1e-6, q
    assert abs(q["cells"]["cupy"]["of_copy"] - 32 * n / 1.0e6 / 3578.0) < 1e-9, q["cells"]["cupy"]
    assert abs(q["cells"]["cuda_handwritten"]["of_copy"] - 32 * n / 1.1e6 / 3578.0) < 1e-9
    assert table[1]["best"] == "jetfuse" and table[1]["bytes"] is None
    d = table[2]
    assert d["best"] == "numba" and abs(d["roof_gbps"] - 2000.0) < 1e-9, d  # the failed check is not ranked
    assert not notes, notes
    md = markdown_gpu({"gpu": "Test GPU", "date": "2026-01-01"}, table,
                      ["peers_elementwise.py: torch not measured: ImportError: no torch"])
    lines = md.splitlines()
    header = next(l for l in lines if l.startswith("| workload"))
    assert header == ("| workload | size | copy GB/s | jetfuse fused | hand-written CUDA / CUB / cuBLAS | CuPy | "
                      "JAX jit | Numba-CUDA | Awkward (cuda) |"), header
    qline = next(l for l in lines if l.startswith("| Quadratic"))
    pct = lambda ms: "%.0f %%" % (100 * 32 * n / (ms * 1e6) / 3578.0)  # noqa: E731
    assert qline == "| Quadratic | 2^27 | 3578 | 1.2 (%s) | 1.1 (%s) | **1 (%s)** | - | 4 (%s) | - |" % (
        pct(1.2), pct(1.1), pct(1.0), pct(4.0)), qline
    dline = next(l for l in lines if l.startswith("| Dielectron/A/all"))
    assert dline == "| Dielectron/A/all |  | 2000 | - | - | - | - | **0.9 (56 %)** | 0.5 (100 %) ✗ |", dline
    assert "1. peers_elementwise.py: torch not measured: ImportError: no torch" in lines
    # The rows where jetfuse trails, computed: the Quadratic row's jetfuse 1.2 ms against CuPy's 1.0
    # and the hand-written 1.1; the Dielectron row has no jetfuse cell.
    assert "- `Quadratic` 2^27: 1.2 ms, 20.0 % behind CuPy (1)" in lines, md
    assert "- `Quadratic` 2^27: 1.2 ms, 9.1 % behind the bench's own (1.1)" in lines, md
    assert sum(l.startswith("- `") and "behind" in l for l in lines) == 2, md
    near = {"workload": "Sum", "size": None, "bytes": None, "roof_gbps": None, "roof_kind": "copy", "best": "cupy",
            "cells": {"jetfuse": {"impl": "jetfuse", "ms": 1.005}, "cupy": {"impl": "cupy", "ms": 1.0}}}
    assert trailing([near]) == (["- `Sum`: 1.005 ms, 0.50 % behind CuPy (1) (within 1 %)"], []), trailing([near])
    near["best"] = "jetfuse"
    near["cells"]["jetfuse"]["ms"] = 0.9
    assert trailing([near]) == ([], []) and "- nowhere" in markdown_gpu({}, [near], []).splitlines()
    # Two cells for one column: the first is kept, and a note says so; bytes that disagree are noted.
    dup = peers_cells("x.py", [{"workload": "Sum", "size": 8, "impl": "cupy", "ms": 1.0, "bytes": 64.0},
                               {"workload": "Sum", "size": 8, "impl": "cupy", "ms": 2.0, "bytes": 64.0},
                               {"workload": "Sum", "size": 8, "impl": "torch", "ms": 2.0, "bytes": 128.0}])
    table, notes = join(dup)
    assert table[0]["cells"]["cupy"]["ms"] == 1.0 and len(notes) == 2, notes
    # A peer's MonteCarloPi cell is repeated under MonteCarloPi/philox4x32, beside that row's jetfuse cell.
    pi = peers_cells("peers_random.py", [{"workload": "MonteCarloPi", "size": None, "impl": "cupy", "ms": 27.0}])
    assert [c["workload"] for c in repeated_peer_cells(pi)] == ["MonteCarloPi/philox4x32"]
    table, notes = join(pi + repeated_peer_cells(pi) + cpp_cells("bench_random", [
        {"name": "BM_PiFused4x32/iterations:3/manual_time", "ms": 4.0, "counters": {}}])[0])
    assert [(r["workload"], r["best"]) for r in table] == [("MonteCarloPi", "cupy"), ("MonteCarloPi/philox4x32", "jetfuse")]
    assert "repeated from MonteCarloPi" in table[1]["cells"]["cupy"]["source"] and not notes, (table, notes)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("selftest: matplotlib is not installed: the plot is not drawn")
    else:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            table, _ = join(cells + peers_cells("p.py", rows))
            path = os.path.join(tmp, "t.png")
            assert plot_gpu({"gpu": "Test GPU", "date": "2026-01-01"}, table, path) and os.path.getsize(path) > 0
    print("selftest: ok")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", nargs="?", choices=["cpu", "gpu"])
    p.add_argument("--build-dir")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--only", help="gpu: a regex; only the workloads it matches (e.g. '^(Quadratic|Sin)$')")
    p.add_argument("--quick", action="store_true",
                   help="gpu: fewer repetitions, sizes 2^20, 2^24, 2^27 only, the table's rows only; a deadline of 480 s")
    p.add_argument("--deadline", type=float, help="gpu: seconds; nothing starts that cannot end by then (0: none)")
    p.add_argument("--data-dir", default="/tmp/jf-bench-data",
                   help="gpu: the dielectron events and jagged lists (the events are kept and reused)")
    p.add_argument("--selftest", action="store_true", help="check the GPU table's joining and formatting, then exit")
    p.add_argument("--render", metavar="JSON",
                   help="gpu: write the table (.md next to the JSON) again from a run's JSON, with this renderer")
    a = p.parse_args()
    if a.selftest:
        selftest()
        return
    if a.render:
        with open(a.render) as f:
            d = json.load(f)
        md = markdown_gpu(d["info"], d["rows"], d["notes"])
        with open(os.path.splitext(a.render)[0] + ".md", "w") as f:
            f.write(md)
        print(md)
        return
    if a.mode is None:
        p.error("cpu or gpu")
    build_dir = a.build_dir or os.path.join(ROOT, "build", "dev" if a.mode == "cpu" else "cuda")
    os.makedirs(a.out_dir, exist_ok=True)
    stamp = datetime.date.today().isoformat()
    if a.mode == "cpu":
        info, table = cpu_rows(build_dir)
        stem = os.path.join(a.out_dir, "cpu-%s-%s" % (platform.machine(), stamp))
        with open(stem + ".json", "w") as f:
            json.dump({"info": info, "rows": table}, f, indent=1)
        md = markdown_cpu(info, table)
        plotted = plot_cpu(info, table, stem + ".png")
    else:
        stem, md, plotted = gpu_table(a, build_dir)
    with open(stem + ".md", "w") as f:
        f.write(md)
    print(md)
    print("wrote %s.json, %s.md%s" % (stem, stem, ", %s.png" % stem if plotted else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
