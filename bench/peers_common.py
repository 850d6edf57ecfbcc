"""What every bench/peers_*.py shares: the timing loop, the device copy it is compared with, and the
machine-readable rows bench/run_all.py joins with the C++ benchmarks' rows.

Each measured row is printed, beside the script's own human-readable line, as one line

    JFROW {"workload": "Quadratic", "size": 134217728, "impl": "cupy", "ms": 1.03, "bytes": 4294967296.0,
           "copy_gbps": 3900.0, "label": "cupy (-b + sqrt(b*b - 4*a*c)) / (2*a)"}

workload and size name the row of the table (the same names as run_all.py's CPP_ROWS give the
Google Benchmark rows; size only for workloads measured at several sizes), impl the column
(run_all.py's IMPLS), ms the time per call, bytes what one call must move (the same count as the
C++ row: inputs read once, outputs written once; null where a row is not counted in bytes),
copy_gbps the device copy measured by the script in the same process (read + written bytes per
second). A peer that cannot run (a library not installed, an API missing) prints

    JFSKIP {"impl": "torch_compile", "workloads": ["Quadratic"], "reason": "ImportError: ..."}

and run_all.py leaves its cells empty with the reason as a footnote. JF_PEERS_QUICK=1 (run_all.py
--quick) times fewer batches of fewer calls.
"""
import json
import os
import statistics
import sys
import time

ROW_PREFIX = "JFROW "
SKIP_PREFIX = "JFSKIP "


def quick():
    """run_all.py --quick: fewer repetitions (JF_PEERS_QUICK=1)."""
    return os.environ.get("JF_PEERS_QUICK", "") not in ("", "0")


def batches():
    return 3 if quick() else 5


def quick_reps(reps):
    return max(1, reps // 3) if quick() else reps


def cupy_sync(_result=None):
    import cupy as cp

    cp.cuda.Device().synchronize()


def timed(f, reps, sync=cupy_sync):
    """Seconds per call: one warm-up call, then batches of `reps` back-to-back calls each followed by
    one sync(last result); the median batch, as the C++ rows report theirs (JF_PEERS_QUICK: fewer
    batches and calls)."""
    sync(f())
    reps = quick_reps(reps)
    per_call = []
    for _ in range(batches()):
        t0 = time.perf_counter()
        r = None
        for _ in range(reps):
            r = f()
        sync(r)
        per_call.append((time.perf_counter() - t0) / reps)
    return statistics.median(per_call)


def first_call(f, sync=cupy_sync):
    """Seconds of the first call in this process (compilation included), synchronised."""
    t0 = time.perf_counter()
    sync(f())
    return time.perf_counter() - t0


def copy_gbps(nbytes):
    """CuPy's device-to-device copy of `nbytes` read and `nbytes` written, in GB/s (read + written)."""
    import cupy as cp

    src = cp.zeros(max(1, nbytes // 8), dtype=cp.float64)
    dst = cp.empty_like(src)
    t = timed(lambda: dst.__setitem__(Ellipsis, src), 20)
    return 2 * src.nbytes / t * 1e-9


def emit(workload, impl, seconds, nbytes=None, copy=None, size=None, label=None, **extra):
    """Prints one JFROW line (seconds: per call)."""
    row = {"workload": workload, "size": size, "impl": impl, "ms": seconds * 1e3,
           "bytes": float(nbytes) if nbytes is not None else None, "copy_gbps": copy, "label": label}
    row.update(extra)
    print(ROW_PREFIX + json.dumps(row), flush=True)


def skip(impl, reason, workloads=None):
    """Prints one JFSKIP line: `impl` did not run (on `workloads`, or on everything the script does)."""
    if isinstance(reason, BaseException):
        reason = "%s: %s" % (type(reason).__name__, str(reason).splitlines()[0][:300] if str(reason) else "")
    print(SKIP_PREFIX + json.dumps({"impl": impl, "workloads": workloads, "reason": reason}), flush=True)
    print("%s: skipped: %s" % (impl, reason), file=sys.stderr, flush=True)


def parse(text):
    """The rows and skips in a script's output (run_all.py): (rows, skips)."""
    rows, skips = [], []
    for line in text.splitlines():
        try:
            if line.startswith(ROW_PREFIX):
                rows.append(json.loads(line[len(ROW_PREFIX):]))
            elif line.startswith(SKIP_PREFIX):
                skips.append(json.loads(line[len(SKIP_PREFIX):]))
        except ValueError:
            pass  # a line cut by a crash: the rest still counts
    return rows, skips
