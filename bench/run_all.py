#!/usr/bin/env python3
"""One command, one table (issue 14). Runs jetfuse's benchmarks and the Python peers on identical
workloads in one go and writes bench/results/<machine>-<date>.json, .md (the table) and .png (the
plot).

    python3 bench/run_all.py cpu [--build-dir build/dev]    # anywhere: jetfuse's CPU backend,
                                                            # a hand-written loop, numpy
    python3 bench/run_all.py gpu [--build-dir build/cuda]   # the GPU machine: every bench_* program
                                                            # (Google Benchmark JSON) and the logs of
                                                            # every bench/peers_*.py

The CPU table is complete: each workload's rows come from bench_cpu (jetfuse, hand-written) and
peers_cpu.py (numpy) in the same run, with the bytes each call must move and the fraction of the
copy bandwidth measured first in that run. The GPU mode gathers every C++ row with its counters
(GB/s, of_copy, as each bench reports them) and each peers script's output as text; the peers do
not print rows in one schema yet, so their numbers are not in the GPU table (docs/benchmarks.md).
"""
import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VARIANTS = ["jetfuse", "handwritten", "numpy"]


def run(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def google_benchmark(exe, extra=()):
    """The rows of one Google Benchmark program: name, ms per call and its counters."""
    out = json.loads(run([exe, "--benchmark_format=json", *extra]))
    rows = []
    for b in out["benchmarks"]:
        if b.get("error_occurred"):
            rows.append({"name": b["name"], "error": b.get("error_message", "")})
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
                "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index", "aggregate_name"}
        rows.append({"name": b["name"], "ms": b["real_time"] * scale,
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
            text = "%.2f" % r["ms"]
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


def gpu_results(build_dir):
    results = {"mode": "gpu", "benches": {}, "peers": {}}
    for exe in sorted(glob.glob(os.path.join(build_dir, "bench", "bench_*"))):
        name = os.path.basename(exe)
        if name == "bench_cpu" or not os.access(exe, os.X_OK) or "." in name:
            continue
        try:
            context, rows = google_benchmark(exe)
            results["benches"][name] = rows
            results.setdefault("context", context)
        except subprocess.CalledProcessError as e:
            results["benches"][name] = [{"error": (e.stderr or "")[-2000:]}]
    for script in sorted(glob.glob(os.path.join(ROOT, "bench", "peers_*.py"))):
        name = os.path.basename(script)
        if name == "peers_cpu.py":
            continue
        p = subprocess.run([sys.executable, script], capture_output=True, text=True, cwd=os.path.join(ROOT, "bench"))
        results["peers"][name] = {"returncode": p.returncode, "stdout": p.stdout[-20000:], "stderr": p.stderr[-4000:]}
    return results


def markdown_gpu(results):
    lines = ["| bench | row | ms | GB/s | of copy |", "|---|---|---|---|---|"]
    for bench, rows in results["benches"].items():
        for r in rows:
            if "error" in r:
                lines.append("| %s | (failed) | | | |" % bench)
                continue
            c = r["counters"]
            lines.append("| %s | %s | %.4f | %s | %s |" % (bench, r["name"], r["ms"],
                                                          "%.0f" % c["GB/s"] if "GB/s" in c else "",
                                                          "%.1f %%" % (100 * c["of_copy"]) if "of_copy" in c else ""))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["cpu", "gpu"])
    p.add_argument("--build-dir")
    p.add_argument("--out-dir", default=os.path.join(ROOT, "bench", "results"))
    a = p.parse_args()
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
        results = gpu_results(build_dir)
        gpu = "gpu"
        try:
            gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                                 text=True).stdout.strip().splitlines()[0].replace(" ", "-")
        except (OSError, IndexError):
            pass
        stem = os.path.join(a.out_dir, "%s-%s" % (gpu, stamp))
        with open(stem + ".json", "w") as f:
            json.dump(results, f, indent=1)
        md = markdown_gpu(results)
        plotted = False
    with open(stem + ".md", "w") as f:
        f.write(md)
    print(md)
    print("wrote %s.json, %s.md%s" % (stem, stem, ", %s.png" % stem if plotted else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
