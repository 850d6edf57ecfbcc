#!/usr/bin/env python3
"""jetfuse's differential fuzzer: random expressions evaluated by jetfuse and by numpy, compared.

  python3 tests/fuzz/fuzz.py --seed 7 --count 500            # generate, build, run, compare
  python3 tests/fuzz/fuzz.py --seed 7 --case 42               # one case again (prints its code)
  python3 tests/fuzz/fuzz.py --build-dir build/dev --seed 7 --count 500   # also on the GPU

The build directory must be configured (any preset; `cmake --preset cpu`): the cases are
written into its tests/fuzz/adhoc/ and compiled by its `fuzz_adhoc` target, with the project's
own flags. On a machine with a GPU and a CUDA build, every case also runs on jf::cuda, fused and
unfused. The ctest test `fuzz_fixed` runs a fixed seed set through the subcommands
`generate` (at build time) and `check` (the test).

Exit status: 0 when every run agrees with numpy, 1 otherwise.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import compare  # noqa: E402
import emit  # noqa: E402
import exprgen  # noqa: E402
import fuzz_common  # noqa: E402
import npeval  # noqa: E402
import optable  # noqa: E402
from optable import OpTable  # noqa: E402
from rng import Rng  # noqa: E402
import variants as vg  # noqa: E402

VARIANTS = 6  # run-time variants (shapes, views, data) per expression

# Known differences not yet fixed: trees that would show them are not generated. Each names the
# issue item that fixes it; drop the rule once that item has landed. (The uint64-scalar and
# out-of-range-comparison rules went with issue 7 item 7.)
def excluded(case, table):
    for root in (case.root, getattr(case, "root2", None)):
        for node in exprgen.walk(root):
            if isinstance(node, exprgen.Clip) and clip_promotes_two_at_a_time(node):
                # design.md, Differences from numpy: jf::clip is minimum(maximum(x, lo), hi)
                return "documented: jf::clip promotes two operands at a time (issue 7)"
            if isinstance(node, exprgen.Clip) and clip_keeps_a_high_bound(node):
                return "documented: jf::clip keeps a Python int hi beyond x's dtype after a wider lo array"
    return ""


def clip_keeps_a_high_bound(node):
    """numpy's _clip drops a Python int hi at or beyond an integer x's largest value; jf::clip
    clamps it to that value, the same unless lo is an array of a wider dtype (design.md)."""
    x, lo, hi = node.args
    if x.t.weak or not optable.is_int(x.t.dtype) or lo.t.weak:
        return False
    if optable.promote(x.t, lo.t).dtype == x.t.dtype:
        return False
    return isinstance(hi, exprgen.Scalar) and hi.kind == "int" and hi.value >= np.iinfo(x.t.dtype).max


def clip_promotes_two_at_a_time(node):
    """Whether numpy's clip, which promotes its three operands together (the strong ones, then the
    weak bounds), gets another dtype (or an OverflowError for a weak bound) than jf::clip's
    maximum, then minimum (clip(bool_x, -7, uint16_hi): numpy uint16, jetfuse int64)."""
    ts = [a.t for a in node.args]
    strong = [t for t in ts if not t.weak]
    if not strong:
        return False
    together = strong[0]
    for t in strong[1:] + [t for t in ts if t.weak]:
        together = optable.promote(together, t)
    return together.dtype != node.t.dtype


class Generator:
    def __init__(self, nvariants=VARIANTS, exclusions=True):
        self.table = OpTable(ROOT)
        self.nvariants = nvariants
        self.exclusions = exclusions  # False: show the known differences (is an item fixed yet?)
        self.skipped = {}   # reason -> count
        self.counters = {}  # excluded elements by known difference
        self.ev = npeval.Evaluator(self.table, self.counters, exclusions)

    def skip(self, reason):
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def case(self, seed, index):
        """(case, variants, numpy's expectations): the index-th valid case of a seed."""
        trng = Rng(seed, index, 0)
        for attempt in range(100):
            case = exprgen.gen_case(self.table, seed, index, trng)
            if case.skip_reason:
                continue  # jetfuse rejects it at compile time by design (documented)
            why = excluded(case, self.table) if self.exclusions else ""
            if why:
                self.skip(why)
                continue
            vrng = Rng(seed, index, 1, attempt)
            variants = vg.make_variants(vrng, case, self.nvariants)
            try:
                expected = [self.ev.expected(case, v) for v in variants]
            except npeval.NumpyRejects as e:
                self.skip("numpy rejects: " + str(e).split(" with ")[0][:90])
                continue
            if all(x["status"] == "error" and x["error"] != "OverflowError" for x in expected):
                # Every variant raises for its shapes: numpy never reached the operations whose
                # dtypes it may reject (no loop, an in-place cast that is not same_kind).
                self.skip("every variant raises for its shapes")
                continue
            return case, variants, expected
        raise SystemExit("fuzz: no valid case for seed %d index %d" % (seed, index))

    def cases(self, seed, indices):
        return [self.case(seed, i) for i in indices]


def describe_leaves(case, variant):
    out = []
    arrays = variant.leaf_arrays()
    for i, (dt, v) in enumerate(zip(case.leaves, variant.views)):
        out.append("a%d: %s %s = %s with b%d %s" % (i, dt, arrays[i].shape, v.describe(), v.base,
                                                    variant.bases[v.base].shape))
    return "; ".join(out)


# Elements compared bit for bit, within an error bound, not checked; runs expecting an error.
tally = {"exact": 0, "bounded": 0, "unchecked": 0, "errors": 0}


def report(items, results, modes, seed_of, build_dir, out=sys.stdout):
    """Compares every run; prints each failing one. Returns (runs, failures)."""
    runs = failures = 0
    for case, variants, expected in items:
        per_case = results.get(case.name)
        if per_case is None:
            out.write("FAIL %s: no result (the runner stopped early?)\n" % case.name)
            failures += 1
            continue
        for vi, (var, exp) in enumerate(zip(variants, expected)):
            for run in per_case.get(vi, []):
                runs += 1
                if exp["status"] == "ok":
                    err = exp["err"]
                    tally["exact"] += int((err == 0).sum())
                    tally["bounded"] += int((np.isfinite(err) & (err > 0)).sum())
                    tally["unchecked"] += int(np.isinf(err).sum())
                else:
                    tally["errors"] += 1
                problems = compare.check_run(case, var, exp, run, var.leaf_arrays())
                if problems:
                    failures += 1
                    out.write("\nFAIL seed %d case %d (%s), variant %d (%s data), mode %s\n" % (
                        case.seed, case.index, case.name, vi, var.kind, run.mode))
                    out.write("  C++:    %s\n" % case.statement_cpp().replace("\n  ", " "))
                    out.write("  numpy:  %s\n" % case.statement_np())
                    out.write("  leaves: %s\n" % describe_leaves(case, var))
                    for p in problems:
                        out.write("  %s\n" % p)
                    out.write("  again:  python3 tests/fuzz/fuzz.py --build-dir %s --seed %d --case %d\n" % (
                        build_dir, case.seed, case.index))
    return runs, failures


def run_runner(exe, items, workdir, cpu_only=False):
    def write_inputs(path):
        compare.write_inputs(path, [(c, v) for c, v, _ in items])
    return fuzz_common.run_runner("fuzz", exe, workdir, write_inputs, compare.read_results,
                                  ["--cpu-only"] if cpu_only else [])


def summary(gen, total_cases, runs, failures, modes):
    print("fuzz: %d expressions, %d runs (modes: %s), %d failed" % (total_cases, runs, ", ".join(modes), failures))
    print("  elements: %d exact, %d within an error bound, %d not checked; %d runs expecting an error" % (
        tally["exact"], tally["bounded"], tally["unchecked"], tally["errors"]))
    for k, v in sorted(gen.skipped.items()):
        print("  skipped tree (%s): %d" % (k, v))
    for k, v in sorted(gen.counters.items()):
        print("  unchecked elements (%s): %d" % (k, v))


# ---- subcommands -------------------------------------------------------------------------------
def cmd_generate(a):
    gen = Generator(a.variants, not a.no_exclusions)
    items = gen.cases(a.seed, range(a.count))
    emit.write_units([c for c, _, _ in items], a.out, a.prefix, a.units)
    fuzz_common.write_stamp(a.stamp, len(items))
    return 0


def cmd_check(a):
    gen = Generator(a.variants, not a.no_exclusions)
    t0 = time.time()
    items = gen.cases(a.seed, range(a.count))
    tgen = time.time() - t0
    res, modes, trun = run_runner(a.exe, items, a.workdir, a.cpu_only)
    if res is None:
        return 1
    t0 = time.time()
    runs, failures = report(items, res, modes, a.seed, a.build_dir)
    print("fuzz: seed %d: numpy %.1f s, runner %.1f s, comparison %.1f s" % (a.seed, tgen, trun, time.time() - t0))
    summary(gen, len(items), runs, failures, modes)
    return 1 if failures else 0


def cmd_adhoc(a):
    """Generate, build with the build dir's `fuzz_adhoc` target, run, compare; batch by batch."""
    adhoc = fuzz_common.Adhoc("fuzz", a.build_dir, "adhoc", "fuzz_adhoc",
                              "first (cmake --preset cpu) with Python and numpy found")
    gen = Generator(a.variants, not a.no_exclusions)
    total_runs = total_fail = ncases = 0
    modes = []
    for batch in fuzz_common.batches(a):
        items = gen.cases(a.seed, batch)
        if a.case is not None:
            c = items[0][0]
            print("case %s\n  C++:   %s\n  numpy: %s" % (c.name, c.statement_cpp(), c.statement_np()))
        emit.write_units([c for c, _, _ in items], adhoc.unit_dir, "adhoc", adhoc.units)
        built, tb = adhoc.build(a.seed, batch)
        if not built:
            return 1
        res, modes, tr = run_runner(adhoc.exe, items, adhoc.workdir, a.cpu_only)
        if res is None:
            return 1
        runs, failures = report(items, res, modes, a.seed, a.build_dir)
        total_runs += runs
        total_fail += failures
        ncases += len(items)
        print("fuzz: seed %d cases %d..%d: build %.0f s, run %.1f s, %d runs, %d failed" % (
            a.seed, batch[0], batch[-1], tb, tr, runs, failures))
        sys.stdout.flush()
    summary(gen, ncases, total_runs, total_fail, modes)
    return 1 if total_fail else 0


def main():
    p = fuzz_common.parser(__doc__, VARIANTS, "run-time variants per expression", prefix="fixed", units=4,
                           build_dir=os.path.join(ROOT, "build", "cpu"), count=200, batch=400)
    p.add_argument("--cpu-only", action="store_true", help="skip jf::cuda even when a GPU is present")
    p.add_argument("--no-exclusions", action="store_true",
                   help="do not exclude the known, not yet fixed differences (to see whether they are fixed)")
    a = p.parse_args()
    np.seterr(all="ignore")
    return {"generate": cmd_generate, "check": cmd_check}.get(a.cmd, cmd_adhoc)(a)


if __name__ == "__main__":
    sys.exit(main())
