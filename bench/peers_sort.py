#!/usr/bin/env python3
"""The Python peers of bench_sort on the same machine and the same keys: 2^27 float32 drawn by
numpy's Philox(key=2028) (the values jf::random::philox(2028).random<float> gives bench_sort),
2^17 rows of 1024 of them, and 2^27 random int32 (the same distribution; numpy's integers draw
other bits than jetfuse's). CuPy: cupy.sort, cupy.argsort, cupy.unique; PyTorch: torch.sort and
torch.argsort with stable=True (torch.sort also returns the indices), torch.unique. Measured as
bench_sort measures (a batch of calls, one synchronisation; the best of 5 batches).

    cd bench && python3 peers_sort.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py (no bytes: sorts
are compared by time, as bench_sort does).
"""
import numpy as np

import peers_common as common

N = 1 << 27
ROWS, ROW = 1 << 17, 1024


def timed(f, reps=10):
    return common.timed(f, reps)


def line(name, seconds, n=N, workload=None, impl=None):
    print(f"{name:<44} {seconds * 1e3:9.2f} ms {n / seconds * 1e-9:7.2f} Gkeys/s", flush=True)
    if workload and impl:
        common.emit(workload, impl, seconds, label=name, gkeys_per_s=n / seconds * 1e-9)


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    g = np.random.Generator(np.random.Philox(key=2028))
    f32 = g.random(N, dtype=np.float32)
    i32 = g.integers(-(2**31), 2**31, N, dtype=np.int32)

    x, xi = cp.asarray(f32), cp.asarray(i32)
    m = x.reshape(ROWS, ROW)
    line("cupy.sort float32", timed(lambda: cp.sort(x)), N, "SortF32", "cupy")
    line("cupy.sort int32", timed(lambda: cp.sort(xi)), N, "SortI32", "cupy")
    line("cupy.argsort float32", timed(lambda: cp.argsort(x)), N, "ArgsortF32", "cupy")
    line("cupy.sort rows float32 (2^17 x 1024)", timed(lambda: cp.sort(m, axis=-1)), N, "SortRowsF32", "cupy")
    line("cupy.argsort rows float32 (2^17 x 1024)", timed(lambda: cp.argsort(m, axis=-1)), N, "ArgsortRowsF32", "cupy")
    line("cupy.unique int32", timed(lambda: cp.unique(xi), 5), N, "UniqueI32", "cupy")
    del x, xi, m
    cp.get_default_memory_pool().free_all_blocks()
    try:
        import torch

        def sync_timed(f, reps=10):
            return common.timed(f, reps, lambda _: torch.cuda.synchronize())

        t, ti = torch.from_numpy(f32).cuda(), torch.from_numpy(i32).cuda()
        tm = t.reshape(ROWS, ROW)
        line("torch.sort float32 (stable, values + indices)", sync_timed(lambda: torch.sort(t, stable=True)), N,
             "SortF32", "torch")
        line("torch.sort int32 (stable, values + indices)", sync_timed(lambda: torch.sort(ti, stable=True)), N,
             "SortI32", "torch")
        line("torch.argsort float32 (stable)", sync_timed(lambda: torch.argsort(t, stable=True)), N,
             "ArgsortF32", "torch")
        line("torch.sort rows float32 (stable)", sync_timed(lambda: torch.sort(tm, dim=-1, stable=True)), N,
             "SortRowsF32", "torch")
        line("torch.argsort rows float32 (stable)", sync_timed(lambda: torch.argsort(tm, dim=-1, stable=True)), N,
             "ArgsortRowsF32", "torch")
        line("torch.unique int32", sync_timed(lambda: torch.unique(ti), 5), N, "UniqueI32", "torch")
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("torch", e)

    # Awkward's ak.sort / ak.argsort per list on its cuda backend: 10M lists with Poisson(2)
    # lengths of random float32 (the distribution of bench_sort's jagged lists; other draws).
    try:
        import awkward as ak

        rng = np.random.default_rng(7)
        counts = rng.poisson(2.0, 10_000_000)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        content = rng.random(int(offsets[-1]), dtype=np.float32)
        layout = ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(content))
        x = ak.to_backend(ak.Array(layout), "cuda")
        n = len(content)
        line(f"ak.sort lists float32 (awkward {ak.__version__}, cuda)", timed(lambda: ak.sort(x, axis=-1), 3), n,
             "JaggedSortF32", "awkward")
        line("ak.argsort lists float32 (cuda)", timed(lambda: ak.argsort(x, axis=-1), 3), n,
             "JaggedArgsortF32", "awkward")
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("awkward", e, ["JaggedSortF32", "JaggedArgsortF32"])


if __name__ == "__main__":
    main()
