#!/usr/bin/env python3
"""The Python peers of bench_scan on the same machine, measured the same way (a batch of calls, one
synchronisation; the copy of 2^27 doubles in the same run): cumsum of 2^27 int32 (int64 result) and
float64, cumsum(x * 2 + 1) (CuPy: two element-wise kernels, then the scan), rows and columns of a
2^27-element matrix, and x[mask] of 2^27 float64 with 1, 50 and 99 % of the mask true (bytes: x,
the mask and the selected values); CuPy (x[mask]) and PyTorch (torch.masked_select).

    cd bench && python3 peers_scan.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py.
"""
import peers_common as common
import peers_reductions  # its copy roof and row printer

N = 1 << 27


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    roof = peers_reductions.copy_roof(N * 16)
    print("copy of 2^27 float64: %.0f GB/s" % roof)
    row = peers_reductions.row
    timed = peers_reductions.timed
    x = cp.arange(N, dtype=cp.float64) / 1024
    i = (cp.arange(N, dtype=cp.int64) % 1000).astype(cp.int32)
    row("cupy cumsum int32 -> int64", timed(lambda: cp.cumsum(i), 10), 12 * N, roof, "CumsumInt32", "cupy")
    row("cupy cumsum float64", timed(lambda: cp.cumsum(x), 10), 16 * N, roof, "CumsumFloat64", "cupy")
    row("cupy cumsum(x*2+1) float64", timed(lambda: cp.cumsum(x * 2 + 1), 10), 16 * N, roof, "CumsumExpression", "cupy")
    m = x.reshape(1 << 13, 1 << 14)
    row("cupy cumsum rows (2^13 x 2^14, axis 1)", timed(lambda: cp.cumsum(m, axis=1), 10), 16 * N, roof, "CumsumRows", "cupy")
    c = x.reshape(1 << 14, 1 << 13)
    row("cupy cumsum columns (2^14 x 2^13, axis 0)", timed(lambda: cp.cumsum(c, axis=0), 10), 16 * N, roof,
        "CumsumColumns", "cupy")
    pos = cp.arange(N, dtype=cp.int64)
    masks = {p: ((pos * 2654435761) % 1000003) < (1000003 * p // 100) for p in (1, 50, 99)}
    for p, m in masks.items():
        count = int(m.sum())
        row("cupy x[mask] %d %% true" % p, timed(lambda: x[m], 10), 9 * N + 8 * count, roof,
            "MaskSelect%dPercent" % p, "cupy")
    try:
        import torch

        xt = torch.arange(N, dtype=torch.float64, device="cuda") / 1024
        it = (torch.arange(N, dtype=torch.int64, device="cuda") % 1000).to(torch.int32)
        row("torch cumsum int32 -> int64", timed(lambda: torch.cumsum(it, 0), 10), 12 * N, roof, "CumsumInt32", "torch")
        row("torch cumsum float64", timed(lambda: torch.cumsum(xt, 0), 10), 16 * N, roof, "CumsumFloat64", "torch")
        row("torch cumsum(x*2+1) float64", timed(lambda: torch.cumsum(xt * 2 + 1, 0), 10), 16 * N, roof,
            "CumsumExpression", "torch")
        mt = xt.reshape(1 << 13, 1 << 14)
        row("torch cumsum rows (axis 1)", timed(lambda: torch.cumsum(mt, 1), 10), 16 * N, roof, "CumsumRows", "torch")
        ct = xt.reshape(1 << 14, 1 << 13)
        row("torch cumsum columns (axis 0)", timed(lambda: torch.cumsum(ct, 0), 10), 16 * N, roof, "CumsumColumns", "torch")
        post = torch.arange(N, dtype=torch.int64, device="cuda")
        for p in (1, 50, 99):
            mt = ((post * 2654435761) % 1000003) < (1000003 * p // 100)
            count = int(mt.sum())
            row("torch masked_select %d %% true" % p, timed(lambda: torch.masked_select(xt, mt), 10), 9 * N + 8 * count,
                roof, "MaskSelect%dPercent" % p, "torch")
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("torch", e)


if __name__ == "__main__":
    main()
