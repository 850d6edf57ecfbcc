"""What fuzz.py (against numpy) and jagged_fuzz.py (against Awkward) share: the command line and
its subcommands' plumbing, running the runner and reading the frame of its results."""
import argparse
import os
import subprocess
import sys
import time


def parser(doc, variants, variants_help, prefix, units, build_dir, count, batch):
    """The command line: `generate` (the build), `check` (the ctest test), else ad hoc; the
    defaults differ per fuzzer. The caller adds its own options."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variants", type=int, default=variants, help=variants_help)
    sub = p.add_subparsers(dest="cmd")
    g = sub.add_parser("generate", help="write the C++ of a seed's cases (the build does this)")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--prefix", default=prefix)
    g.add_argument("--units", type=int, default=units)
    g.add_argument("--stamp")
    c = sub.add_parser("check", help="run a built runner on a seed's cases and compare (the ctest test)")
    c.add_argument("--seed", type=int, required=True)
    c.add_argument("--count", type=int, required=True)
    c.add_argument("--exe", required=True)
    c.add_argument("--workdir", required=True)
    c.add_argument("--build-dir", default="build/dev")
    p.add_argument("--build-dir", default=build_dir)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=count)
    p.add_argument("--first", type=int, default=0, help="index of the first case")
    p.add_argument("--case", type=int, help="run only this case index")
    p.add_argument("--batch", type=int, default=batch, help="cases compiled at a time")
    return p


def write_stamp(path, ncases):
    if path:
        with open(path, "w") as fh:
            fh.write("%d cases\n" % ncases)


def run_runner(tool, exe, workdir, write_inputs, read_results, args=()):
    """Writes the inputs (write_inputs(path)), runs `exe INPUTS RESULTS args...` and reads the
    results (read_results(path) -> (results, modes, ended)). Returns (results or None, modes, seconds)."""
    os.makedirs(workdir, exist_ok=True)
    inputs, results = os.path.join(workdir, "inputs.txt"), os.path.join(workdir, "results.txt")
    write_inputs(inputs)
    t0 = time.time()
    p = subprocess.run([exe, inputs, results] + list(args), capture_output=True, text=True)
    dt = time.time() - t0
    if p.returncode != 0:
        sys.stdout.write("%s: the runner failed (exit %d):\n%s%s\n" % (tool, p.returncode, p.stdout, p.stderr[-4000:]))
        return None, [], dt
    res, modes, ended = read_results(results)
    if not ended:
        sys.stdout.write("%s: the runner's results are incomplete\n" % tool)
        return None, [], dt
    return res, modes, dt


def read_results(path, header, parse_run):
    """The runner's results: ({case name: {variant: [run]}}, the words after `header` (the modes or
    backends), whether it got to "end"). A run is parse_run(mode, words after the mode, follow),
    where follow(prefix) takes the next line if it starts with prefix (else None)."""
    out, modes, ended, cur = {}, [], False, None
    with open(path) as fh:
        lines = fh.read().split("\n")
    pos = [0]

    def follow(prefix):
        if pos[0] < len(lines) and lines[pos[0]].startswith(prefix):
            pos[0] += 1
            return lines[pos[0] - 1]
        return None

    while pos[0] < len(lines):
        w = lines[pos[0]].split(" ")
        pos[0] += 1
        if w[0] == header:
            modes = w[1:]
        elif w[0] == "case":
            cur = out.setdefault(w[1], {})
        elif w[0] == "run":
            cur.setdefault(int(w[1]), []).append(parse_run(w[2], w[3:], follow))
        elif w[0] == "end":
            ended = True
    return out, modes, ended


class Adhoc:
    """The ad hoc target of a configured build dir: its units (in tests/fuzz/SUBDIR) and runner."""

    def __init__(self, tool, build_dir, subdir, target, needs):
        self.tool, self.target = tool, target
        self.build_dir = os.path.abspath(build_dir)
        self.unit_dir = os.path.join(self.build_dir, "tests", "fuzz", subdir)
        self.exe = os.path.join(self.build_dir, "tests", "fuzz", target)
        self.workdir = os.path.join(self.build_dir, "tests", "fuzz", subdir + "-run")
        if not os.path.isdir(self.unit_dir):
            raise SystemExit("%s: %s has no tests/fuzz/%s: configure it %s" % (tool, self.build_dir, subdir, needs))
        self.units = len([f for f in os.listdir(self.unit_dir) if f.startswith(subdir + "_") and f.endswith(".cpp")])

    def build(self, seed, batch):
        """Builds the target; (whether it compiled, seconds). Prints the compiler's errors."""
        t0 = time.time()
        b = subprocess.run(["cmake", "--build", self.build_dir, "--target", self.target],
                           capture_output=True, text=True)
        tb = time.time() - t0
        if b.returncode != 0:
            sys.stdout.write(b.stdout[-20000:] + b.stderr[-5000:])
            print("%s: the generated code did not compile (seed %d, cases %d..%d)" % (
                self.tool, seed, batch[0], batch[-1]))
        return b.returncode == 0, tb


def batches(a):
    """The case indices of an ad hoc run (--case, or --first and --count), --batch at a time."""
    indices = [a.case] if a.case is not None else list(range(a.first, a.first + a.count))
    return [indices[start:start + a.batch] for start in range(0, len(indices), a.batch)]
