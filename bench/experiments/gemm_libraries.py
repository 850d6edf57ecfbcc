# Experiment: is the float64 GEMM's gap to PyTorch and CuPy in the table (17.8 against 19.0 ms, H200
# 2026-11-29) the cuBLAS call or the clocks? In one process, on the same data: cublasDgemm of every
# libcublas found (opened with ctypes: the system's and the wheels' under site-packages/nvidia),
# with the default and a 64 MiB workspace, CuPy's a @ b and PyTorch's a @ b, then again.
# Measured (H200, 2026-11-29; PyTorch's and CuPy's wheels load the same cuBLAS 13.1 as the system):
# direct default workspace 19.27 ms, 64 MiB 20.22, CuPy 19.57, PyTorch 20.52, direct again 19.85,
# PyTorch again 20.24 (medians of 9 batches of 3): no call is faster; the time follows the clocks
# of a power-bound kernel, so bench_matmul.cpp and peers_matmul.py warm every GEMM row for 2 s.
# Run: python3 bench/experiments/gemm_libraries.py   (CuPy and PyTorch installed)
import ctypes, glob, os, statistics, time, sys
import cupy as cp
import torch
n = 8192
a = cp.random.random((n, n)); b = cp.random.random((n, n)); c = cp.empty((n, n))
def timed(name, f, batches=9, reps=3):
    f(); cp.cuda.Device().synchronize()
    per = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps): f()
        cp.cuda.Device().synchronize()
        per.append((time.perf_counter() - t0) / reps * 1e3)
    print(f"{name}: median {statistics.median(per):.3f} ms, best {min(per):.3f}, batches {' '.join('%.2f' % p for p in per)}", flush=True)
libs = {}
for path in ["libcublas.so.13"] + glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "cublas*", "lib", "libcublas.so.1*")) + glob.glob("/usr/local/lib/python3*/dist-packages/nvidia/cublas*/lib/libcublas.so.1*"):
    try:
        l = ctypes.CDLL(path)
    except OSError as e:
        print("cannot load", path, e); continue
    v = ctypes.c_int()
    h = ctypes.c_void_p(); l.cublasCreate_v2(ctypes.byref(h)); l.cublasGetVersion_v2(h, ctypes.byref(v))
    print(path, "version", v.value, os.path.realpath(path))
    libs[v.value] = (l, h)
print("cupy's cublas:", cp.cuda.cublas.getVersion(cp.cuda.device.get_cublas_handle()))
print("torch cuda", torch.version.cuda, "cublas loaded:", [l for l in open('/proc/self/maps').read().split() if 'libcublas' in l][:4])
one = ctypes.c_double(1.0); zero = ctypes.c_double(0.0)
for v, (l, h) in sorted(libs.items()):
    for ws in (0, 1):
        if ws:
            buf = cp.empty(64 << 20, dtype=cp.uint8)
            l.cublasSetWorkspace_v2(h, ctypes.c_void_p(buf.data.ptr), ctypes.c_size_t(64 << 20))
        f = lambda: l.cublasDgemm_v2(h, 0, 0, n, n, n, ctypes.byref(one), ctypes.c_void_p(b.data.ptr), n, ctypes.c_void_p(a.data.ptr), n, ctypes.byref(zero), ctypes.c_void_p(c.data.ptr), n)
        timed(f"direct cublasDgemm, cuBLAS {v}, workspace {'64 MiB' if ws else 'default'}", f)
timed("cupy a @ b", lambda: a @ b)
ta = torch.as_tensor(a, device="cuda"); tb = torch.as_tensor(b, device="cuda")
timed("torch a @ b", lambda: ta @ tb)
for v, (l, h) in sorted(libs.items()):
    f = lambda: l.cublasDgemm_v2(h, 0, 0, n, n, n, ctypes.byref(one), ctypes.c_void_p(b.data.ptr), n, ctypes.c_void_p(a.data.ptr), n, ctypes.byref(zero), ctypes.c_void_p(c.data.ptr), n)
    timed(f"direct cublasDgemm, cuBLAS {v}, again", f)
timed("torch a @ b again", lambda: ta @ tb)
