#!/usr/bin/env python3
"""Awkward Array on its cuda backend on bench_jagged's workloads, on the same data: writes the lists
(10M Poisson(2) float32 lists, and the long-tailed set with 0.5 % of lists of 64 elements) to
<dir>/{poisson,tail}_{offsets,content}.bin for bench/bench_jagged.cpp (JF_JAGGED_DATA=<dir>), then
times Awkward eager and its lazy fusion prototype (awkward._connect.cuda.lazy: only + - * / and a
sum fuse; max falls back; sqrt is not supported by it — reported as such). A batch of calls, one
synchronisation, best of 5, with the device copy measured in the same run.

    python3 bench/peers_jagged.py /tmp/jagged && JF_JAGGED_DATA=/tmp/jagged ./build/cuda/bench/bench_jagged

Needs awkward==2.14.0, awkward-cpp==57, cuda-cccl==1.2.1 (carried as wheels to the GPU machine) and
CuPy. Awkward's combinations are timed by bench/peers_dielectron.py (the dielectron query; its cuda
backend JITs them with numba-cuda-mlir, which .ci/peer-wheels.sh packs for the GPU machine).
The data files are written before Awkward is imported: without Awkward (a JFSKIP line) bench_jagged
still runs on them. Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py.
"""
import os
import sys

import numpy as np

import peers_common as common

N = 10_000_000


def timed(f, reps=5):
    return common.timed(f, reps)


def row(name, seconds, nbytes, roof, workload=None, impl="awkward"):
    gbps = nbytes / seconds * 1e-9
    print("%-58s %10.1f us %8.1f GB/s %6.1f %% of copy" % (name, seconds * 1e6, gbps, 100 * gbps / roof), flush=True)
    if workload:
        common.emit(workload, impl, seconds, nbytes, roof, label=name)


def data(tail, out_dir):
    rng = np.random.default_rng(2 if tail else 1)
    counts = rng.poisson(2, N)
    if tail:
        counts[rng.random(N) < 0.005] = 64
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    content = rng.uniform(0, 100, int(offsets[-1])).astype(np.float32)
    name = "tail" if tail else "poisson"
    offsets.tofile(os.path.join(out_dir, name + "_offsets.bin"))
    content.tofile(os.path.join(out_dir, name + "_content.bin"))
    return offsets, content


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/jagged"
    os.makedirs(out_dir, exist_ok=True)
    sets = {tail: data(tail, out_dir) for tail in (False, True)}
    print("wrote the lists to %s" % out_dir, flush=True)
    try:
        import cupy as cp
        import awkward as ak
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("awkward", e)
        return
    roof = common.copy_gbps(8 << 27)
    print("device copy: %.1f GB/s (awkward %s)" % (roof, ak.__version__), flush=True)
    for tail in (False, True):
        offsets, content = sets[tail]
        label = "tail" if tail else "poisson"
        layout = ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content))
        x = ak.to_backend(ak.Array(layout), "cuda")
        met = cp.arange(N, dtype=cp.float32) * cp.float32(0.001)
        nbytes = offsets.nbytes + content.nbytes + 4 * N
        eager_rows = (
            ("awkward eager ak.sum(x, -1)", lambda: ak.sum(x, axis=-1), nbytes, "ListSum"),
            ("awkward eager ak.max(x, -1)", lambda: ak.max(x, axis=-1), nbytes + N, "ListMax"),
            ("awkward eager ak.sum(x*2+1, -1)", lambda: ak.sum(x * 2 + 1, axis=-1), nbytes, "ListSumOfExpression"),
            ("awkward eager ak.max(sqrt(x*x*2+met)-1, -1)", lambda: ak.max(np.sqrt(x * x * 2 + met) - 1, axis=-1),
             nbytes + 5 * N, "FiveOperationPipeline"),
        )
        for name, call, nb, workload in eager_rows:
            try:
                row("%s [%s]" % (name, label), timed(call), nb, roof, workload + "/" + label)
            except Exception as e:  # noqa: BLE001 - e.g. a dependency of Awkward's cuda backend missing
                common.skip("awkward", e, [workload + "/" + label])
        try:
            from awkward._connect import cuda as akcuda
            lz = akcuda.lazy(x)
        except Exception as e:  # the prototype's API is internal
            common.skip("awkward_lazy", e)
            continue
        # The prototype has no ufuncs (no np.sqrt): the pipeline's square root is written ** 0.5.
        lazy_rows = (
            ("awkward lazy (x*2+1).sum()", lambda: (lz * 2 + 1).sum().compute(), nbytes, "ListSumOfExpression"),
            ("awkward lazy x.max()", lambda: lz.max().compute(), nbytes + N, "ListMax"),
            ("awkward lazy ((x*x*2+met)**0.5-1).max()", lambda: ((lz * lz * 2 + met) ** 0.5 - 1).max().compute(),
             nbytes + 5 * N, "FiveOperationPipeline"),
        )
        for name, call, nb, workload in lazy_rows:
            try:
                row("%s [%s]" % (name, label), timed(call), nb, roof, workload + "/" + label, "awkward_lazy")
            except Exception as e:  # noqa: BLE001 - what the prototype cannot run is reported
                common.skip("awkward_lazy", e, [workload + "/" + label])


if __name__ == "__main__":
    main()
