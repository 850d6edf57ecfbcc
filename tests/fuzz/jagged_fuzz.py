#!/usr/bin/env python3
"""jetfuse's differential fuzzer over jagged expressions: random expressions over jf::jagged
leaves, records and combinations, evaluated by jetfuse and by Awkward 2.14, compared.

  python3 tests/fuzz/jagged_fuzz.py --build-dir build/dev --seed 7 --count 200   # generate, build, run, compare
  python3 tests/fuzz/jagged_fuzz.py --build-dir build/dev --seed 7 --case 42      # one case again
  python3 tests/fuzz/jagged_fuzz.py --build-dir build/dev --backends cpu,cuda ... # on a GPU

The build directory must be configured with Python, numpy and awkward found (tests/fuzz/
CMakeLists.txt): cases are written into its tests/fuzz/jadhoc/ and built by its `jfuzz_adhoc`
target. The ctest tests `jfuzz_seed_<N>` run a fixed seed set through the subcommands `generate`
(at build time) and `check`. Exit status: 0 when every run agrees with Awkward, 1 otherwise.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import awkward as ak  # noqa: E402
import numpy as np  # noqa: E402

import emit  # noqa: E402
import fuzz_common  # noqa: E402
import jagged_exprgen as jg  # noqa: E402
import jagged_variants as jv  # noqa: E402
from emit import fnv1a  # noqa: E402
from rng import Rng  # noqa: E402

VARIANTS = 6


# ---- Awkward's answer --------------------------------------------------------------------------
def _flat(x):
    """A flat numpy array of an ak.Array / numpy value (None as a masked entry)."""
    if isinstance(x, ak.Array):
        x = ak.fill_none(x, 0)
        x = ak.to_numpy(ak.flatten(x, axis=None) if x.ndim > 1 and _is_var(x) else x, allow_missing=True)
    return np.ma.asarray(x)


def _is_var(x):
    return "var" in str(x.type)


def _err_like(v, e):
    if e is None:
        return np.zeros(_flat(v).shape)
    if isinstance(v, ak.Array) and not isinstance(e, ak.Array):
        e = ak.Array(np.asarray(e))
    if isinstance(v, ak.Array):
        e = ak.broadcast_arrays(e, v)[0]
    return np.ma.getdata(_flat(ak.fill_none(e, 0.0) if isinstance(e, ak.Array) else e)).astype(np.float64)


def expected(case, variant):
    env = case.env(variant.inputs())
    v, e, g = case.root.ak(env)
    if g is not None:  # x(m) at the root: materialised
        v = v[g]
        e = None if e is None else e[g]
    out = {"kind": case.kind, "awkward_dtypes": env.get("_awkward_dtypes", [])}
    if case.kind == "jagged":
        # Awkward makes an empty list None when an option value (a keepdims max) is broadcast into it
        # and the result goes through another operation; jetfuse keeps it an empty list.
        none_lists = np.asarray(ak.is_none(v, axis=0))
        out["none_lists"] = int(none_lists.sum())
        out["none_lists_nonempty"] = int((none_lists & (np.asarray(ak.num(env["a0"], axis=1)) > 0)).sum())
        out["counts"] = np.asarray(ak.fill_none(ak.num(v, axis=1), 0), dtype=np.int64)
        flat = ak.flatten(v, axis=1)
        out["dtype"] = jg._dtype_of(flat)
        out["none_inside"] = int(ak.sum(ak.is_none(flat)))
        arr = ak.to_numpy(ak.fill_none(flat, 0), allow_missing=False)
        out["values"], out["shape"] = np.asarray(arr), None
        out["err"] = _err_like(flat, None if e is None else ak.flatten(ak.broadcast_arrays(e, v)[0], axis=1))
        return out
    if isinstance(v, ak.Array):
        arr = ak.to_numpy(v, allow_missing=True)
    else:
        arr = np.ma.asarray(v)
    arr = np.ma.asarray(arr)
    if getattr(case.root, "keepdims", False) and isinstance(case.root, jg.Reduce):
        arr = arr.reshape(arr.shape + (1,))  # Awkward's n * 1 * T
    out["dtype"] = case.root.dtype if isinstance(case.root, jg.Reduce) else arr.dtype.name
    out["shape"] = arr.shape
    out["values"] = np.ma.getdata(arr)
    out["valid"] = ~np.ma.getmaskarray(arr)
    err = _err_like(v, e)
    out["err"] = err.reshape(arr.shape) if err.size == arr.size else np.broadcast_to(err.reshape(-1, *([1] * (arr.ndim - 1))) if arr.ndim else err, arr.shape)
    if case.kind == "dense" and arr.ndim and not out["valid"].all():
        # the None lists of an option value broadcast into empty lists (above), reduced: not compared
        empty = (np.asarray(ak.num(env["a0"], axis=1)) == 0).reshape((-1,) + (1,) * (arr.ndim - 1))
        none_empty = ~out["valid"] & empty
        out["none_lists"] = int(none_empty.sum())
        out["err"] = np.where(none_empty, np.inf, out["err"])
        out["valid"] = out["valid"] | none_empty
    return out


# ---- the runner's files ------------------------------------------------------------------------
def hexs(a):
    return a.tobytes().hex() or "-"


def write_inputs(path, items):
    with open(path, "w") as fh:
        for case, variants, _ in items:
            fh.write("case %s %x %d\n" % (case.name, fnv1a("\n".join(case.body_cpp())), len(variants)))
            for var in variants:
                fh.write("variant %d %d\n" % (len(var.jagged), len(var.lists)))
                for dt, off, content, share, start, stop in var.jagged:
                    fh.write("jag %s %d %d %d %s %s\n" % (dt, share, start, stop, hexs(off), hexs(content)))
                for x in var.lists:
                    fh.write("list %s %s\n" % (x.dtype.name, hexs(x)))


def decode(h, dtype):
    return np.frombuffer(b"" if h == "-" else bytes.fromhex(h), dtype=dtype)


def read_results(path):
    """{case name: {variant: [(backend, the run's words)]}}, the backends and whether it finished."""
    return fuzz_common.read_results(path, "backends", lambda backend, w, follow: (backend, w))


def parse_run(w):
    """{kind, dtype, shape, values, valid, counts} or {error, message}."""
    if w[0] == "error":
        return {"error": w[1], "message": " ".join(w[2:])}
    kind, dt = w[1], w[2]
    if kind == "jagged":
        off = decode(w[3], np.int64)
        content = decode(w[4], dt)
        base = off[0] if len(off) else 0
        return {"kind": kind, "dtype": dt, "counts": np.diff(off), "values": content[base:off[-1]] if len(off) else content[:0]}
    nd = int(w[3])
    shape = tuple(int(x) for x in w[4:4 + nd])
    r = {"kind": kind, "dtype": dt, "shape": shape, "values": decode(w[4 + nd], dt).reshape(shape)}
    if kind == "option":
        r["valid"] = decode(w[5 + nd], np.bool_).reshape(shape)
    return r


# ---- the comparison ----------------------------------------------------------------------------
def bad_elements(got, want, err):
    # An infinite bound accepts any value; so does a NaN one, which is an infinite bound scaled by a
    # zero magnitude in the propagation (a product that may overflow in some order, squared at 0).
    if want.dtype.kind not in "fc" and got.dtype.kind not in "fc":
        return (got != want) & np.isfinite(err)
    with np.errstate(all="ignore"):
        g, w = got.astype(np.float64), want.astype(np.float64)
        ok = (np.isnan(g) & np.isnan(w)) | (g == w) | (np.abs(g - w) <= err) | ~np.isfinite(err)
    return ~ok


def check(exp, run):
    """Problems (strings) and the first bad list (or None)."""
    if "error" in run:
        return ["jetfuse threw %s: %s" % (run["error"], run["message"])], None
    probs = []
    for node, dt in exp["awkward_dtypes"]:
        documented = node.red == "mean" and node.x.dtype == "float32"  # design.md: float32 in jetfuse
        if dt != node.dtype and not documented:
            probs.append("%s: Awkward's dtype %s, jetfuse's rule %s" % (node.cpp()[:60], dt, node.dtype))
    if run["kind"] != exp["kind"]:
        return probs + ["result is %s, Awkward's %s" % (run["kind"], exp["kind"])], None
    if run["dtype"] != exp["dtype"]:
        probs.append("result dtype %s, Awkward %s" % (run["dtype"], exp["dtype"]))
    if exp["kind"] == "jagged":
        if exp["none_lists_nonempty"]:
            probs.append("Awkward gives None for %d non-empty lists" % exp["none_lists_nonempty"])
        if exp["none_inside"]:
            probs.append("Awkward gives %d None inside the lists; jetfuse's jagged result has none" % exp["none_inside"])
        if not np.array_equal(run["counts"], exp["counts"]):
            d = np.flatnonzero(run["counts"] != exp["counts"]) if len(run["counts"]) == len(exp["counts"]) else [0]
            return probs + ["list lengths %s, Awkward %s (first difference at list %d)" % (
                list(run["counts"][:20]), list(exp["counts"][:20]), d[0])], int(d[0])
        bad = bad_elements(run["values"], exp["values"], exp["err"])
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            lst = int(np.searchsorted(np.cumsum(exp["counts"]), k, side="right"))
            probs.append("%d of %d elements differ; first at element %d (list %d): jetfuse %r, Awkward %r (bound %g)" % (
                bad.sum(), bad.size, k, lst, run["values"][k].item(), exp["values"][k].item(), exp["err"][k]))
            return probs, lst
        return probs, None
    if tuple(run["shape"]) != tuple(exp["shape"]):
        return probs + ["result shape %s, Awkward %s" % (run["shape"], exp["shape"])], None
    bad = bad_elements(run["values"], exp["values"], exp["err"])
    if exp["kind"] == "option":
        vbad = run["valid"] != exp["valid"]
        bad = vbad | (bad & exp["valid"])
    elif not exp["valid"].all():
        probs.append("Awkward gives None where jetfuse's result has no option type")
    if bad.any():
        ix = np.argwhere(bad)[0] if bad.ndim else ()
        ix = tuple(int(i) for i in ix)
        got = run["values"][ix] if run.get("valid", np.ones(bad.shape, bool))[ix] else None
        want = exp["values"][ix] if exp["valid"][ix] else None
        probs.append("%d of %d values differ; first at %s: jetfuse %r, Awkward %r (bound %g)" % (
            bad.sum(), bad.size, list(ix), None if got is None else got.item(), None if want is None else want.item(),
            exp["err"][ix]))
        return probs, (ix[0] if ix else None)
    return probs, None


# ---- generation --------------------------------------------------------------------------------
class Generator:
    def __init__(self, nvariants=VARIANTS):
        self.nvariants = nvariants
        self.skipped = {}

    def case(self, seed, index):
        for attempt in range(50):
            rng = Rng(seed, index, attempt)
            case = jg.gen_case(rng, seed, index)
            why = jg.known_difference(case)
            if why:
                self.skipped["known difference: " + why] = self.skipped.get("known difference: " + why, 0) + 1
                continue
            variants = jv.make_variants(Rng(seed, index, attempt, 1), case, self.nvariants)
            try:
                with np.errstate(all="ignore"):
                    exps = [expected(case, v) for v in variants]
            except Exception as e:  # noqa: BLE001 - Awkward refuses this tree: draw another
                key = "Awkward raises %s" % type(e).__name__
                self.skipped[key] = self.skipped.get(key, 0) + 1
                continue
            return case, variants, exps
        raise SystemExit("jagged_fuzz: no valid case for seed %d index %d" % (seed, index))

    def cases(self, seed, indices):
        return [self.case(seed, i) for i in indices]


def case_function(case):
    return "\n".join(["void %s(ctx& c) {" % case.name] + ["  " + line for line in case.body_cpp()] + ["}"])


def translation_unit(cases):
    return emit.translation_unit(cases, "jagged_fuzz.py", "jagged_harness.hpp", "jf_jfuzz", case_function,
                                 lambda c: "\n".join(c.body_cpp()))


def write_units(cases, directory, prefix, units):
    emit.write_units(cases, directory, prefix, units, translation_unit)


# ---- reports -----------------------------------------------------------------------------------
def literal(a):
    if a.dtype == np.bool_:
        return ", ".join("true" if x else "false" for x in a)
    return ", ".join(repr(float(x)) if a.dtype.kind == "f" else str(int(x)) for x in a)


def repro_program(case, var, backend):
    """A standalone C++ program of the case on this variant's data (prints jetfuse's answer)."""
    lines = ["#include <jetfuse/jetfuse.hpp>", "#include <iostream>", "", "int main() {",
             "  const jf::device dev = jf::%s;" % backend]
    for i, (dt, off, content, share, start, stop) in enumerate(var.jagged):
        t = jg.CPP_TYPE[dt]
        lines.append("  const jf::jagged<%s> a%d_whole(jf::array<std::int64_t>(std::vector<std::int64_t>{%s}, dev),"
                     % (t, i, literal(off)))
        lines.append("      jf::array<%s>(std::vector<%s>{%s}, dev));" % (t, t, literal(content)))
    for i, x in enumerate(var.lists):
        t = jg.CPP_TYPE[x.dtype.name]
        lines.append("  const jf::array<%s> d%d_in(std::vector<%s>{%s}, dev);" % (t, i, t, literal(x)))
    body = case.body_cpp()
    for line in body[:-1]:
        line = line.replace("c.jag<", "jf::jagged<").replace("c.per_list<", "jf::array<")
        import re
        line = re.sub(r"(jf::jagged<[^>]+>)\((\d+)\);", lambda m: "a%s_whole%s;" % (
            m.group(2), "(jf::range(%d, %d))" % var.jagged[int(m.group(2))][4:6] if var.jagged[int(m.group(2))][4] >= 0 else ""), line)
        line = re.sub(r"(jf::array<[^>]+>)\((\d+)\);", lambda m: "d%s_in;" % m.group(2), line)
        lines.append("  " + line)
    lines.append("  const auto result = jf::eval(%s);" % case.root.cpp())
    lines.append("  std::cout << jf::awkward_str(result) << std::endl;")
    lines.append("}")
    return "\n".join(lines)


def awkward_repro(case, var):
    lines = ["import awkward as ak, numpy as np"]
    for i, (dt, off, content, share, start, stop) in enumerate(var.jagged):
        lines.append("a%d = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(np.array([%s])), "
                     "ak.contents.NumpyArray(np.array([%s], np.%s))))%s" % (
                         i, literal(off), literal(content).replace("true", "True").replace("false", "False"), dt,
                         "[%d:%d]" % (start, stop) if start >= 0 else ""))
    for i, x in enumerate(var.lists):
        lines.append("d%d = np.array([%s], np.%s)" % (i, literal(x), x.dtype.name))
    lines.append("# then: %s  (records: ak.zip; combinations: ak.unzip(ak.combinations(., 2)); "
                 "x(m) is x[m] applied at the reduction)" % case.python())
    return "\n".join(lines)


def shrunk(case, var, bad_list):
    """The variant cut to its list `bad_list` alone (offsets and slicing kept), or None."""
    if bad_list is None:
        return None
    out = jv.Variant(var.kind + " (list %d alone)" % bad_list)
    for dt, off, content, share, start, stop in var.jagged:
        first = (start if start >= 0 else 0) + bad_list
        out.jagged.append((dt, off[first:first + 2].copy(), content, share, -1, -1))
    out.lists = [x[bad_list:bad_list + 1].copy() for x in var.lists]
    return out


tally = {"runs": 0, "failures": 0, "none_lists": 0}


def report(items, results, build_dir, exe, workdir, backends, out=sys.stdout):
    for case, variants, exps in items:
        per_case = results.get(case.name)
        if per_case is None:
            out.write("FAIL %s: no result (the runner stopped early?)\n" % case.name)
            tally["failures"] += 1
            continue
        for vi, (var, exp) in enumerate(zip(variants, exps)):
            for backend, w in per_case.get(vi, []):
                tally["runs"] += 1
                tally["none_lists"] += exp.get("none_lists", 0)
                probs, bad_list = check(exp, parse_run(w))
                if not probs:
                    continue
                tally["failures"] += 1
                small = shrunk(case, var, bad_list)
                if small is not None and exe:
                    sres = run_runner(exe, [(case, [small], None)], workdir + "-shrink", backend)[0]
                    sexp = expected(case, small)
                    if sres and not check(sexp, parse_run(sres[case.name][0][0][1]))[0]:
                        small = None  # the list alone agrees: report the whole variant
                    elif sres:
                        var = small
                out.write("\nFAIL seed %d case %d (%s), variant %d (%s), backend %s\n" % (
                    case.seed, case.index, case.name, vi, var.kind, backend))
                out.write("  C++:\n    %s\n" % "\n    ".join(case.body_cpp()))
                out.write("  inputs: %s\n" % var.describe())
                for p in probs:
                    out.write("  %s\n" % p)
                out.write("  Awkward:\n    %s\n" % awkward_repro(case, var).replace("\n", "\n    "))
                out.write("  program (%s):\n    %s\n" % (
                    "cut to the first differing list" if small is not None else "the whole variant",
                    repro_program(case, var, backend).replace("\n", "\n    ")))
                out.write("  again:  python3 tests/fuzz/jagged_fuzz.py --build-dir %s --seed %d --case %d\n" % (
                    build_dir, case.seed, case.index))


def run_runner(exe, items, workdir, backends):
    return fuzz_common.run_runner("jagged_fuzz", exe, workdir, lambda path: write_inputs(path, items), read_results,
                                  [backends] if backends else [])


def summary(gen, ncases, used):
    print("jagged_fuzz: %d expressions, %d runs (backends: %s), %d failed" % (
        ncases, tally["runs"], ", ".join(used), tally["failures"]))
    if tally["none_lists"]:
        print("  empty lists Awkward gives as None (an option value broadcast into them), jetfuse as []: %d"
              % tally["none_lists"])
    for k, v in sorted(gen.skipped.items()):
        print("  redrawn trees (%s): %d" % (k, v))


def backends_arg(a):
    return "" if a.backends is None else a.backends


# ---- subcommands -------------------------------------------------------------------------------
def cmd_generate(a):
    items = Generator(a.variants).cases(a.seed, range(a.count))
    write_units([c for c, _, _ in items], a.out, a.prefix, a.units)
    fuzz_common.write_stamp(a.stamp, len(items))
    return 0


def cmd_check(a):
    gen = Generator(a.variants)
    t0 = time.time()
    items = gen.cases(a.seed, range(a.count))
    tgen = time.time() - t0
    res, used, trun = run_runner(a.exe, items, a.workdir, backends_arg(a))
    if res is None:
        return 1
    t0 = time.time()
    report(items, res, a.build_dir, a.exe, a.workdir, backends_arg(a))
    print("jagged_fuzz: seed %d: Awkward %.1f s, runner %.1f s, comparison %.1f s" % (a.seed, tgen, trun, time.time() - t0))
    summary(gen, len(items), used)
    return 1 if tally["failures"] else 0


def cmd_adhoc(a):
    adhoc = fuzz_common.Adhoc("jagged_fuzz", a.build_dir, "jadhoc", "jfuzz_adhoc", "with Python, numpy and awkward found")
    gen = Generator(a.variants)
    ncases, used = 0, []
    for batch in fuzz_common.batches(a):
        items = gen.cases(a.seed, batch)
        if a.case is not None:
            print("case %s\n  %s" % (items[0][0].name, "\n  ".join(items[0][0].body_cpp())))
        write_units([c for c, _, _ in items], adhoc.unit_dir, "jadhoc", adhoc.units)
        built, tb = adhoc.build(a.seed, batch)
        if not built:
            return 1
        res, used, tr = run_runner(adhoc.exe, items, adhoc.workdir, backends_arg(a))
        if res is None:
            return 1
        before = tally["failures"]
        report(items, res, a.build_dir, adhoc.exe, adhoc.workdir, backends_arg(a))
        ncases += len(items)
        print("jagged_fuzz: seed %d cases %d..%d: build %.0f s, run %.1f s, %d failed" % (
            a.seed, batch[0], batch[-1], tb, tr, tally["failures"] - before))
        sys.stdout.flush()
    summary(gen, ncases, used)
    return 1 if tally["failures"] else 0


def main():
    p = fuzz_common.parser(__doc__, VARIANTS, "run-time inputs per expression", prefix="jfixed", units=2,
                           build_dir="build/dev", count=100, batch=200)
    p.add_argument("--backends", help="cpu, cuda or cpu,cuda (default: cpu, and cuda when a GPU is present)")
    a = p.parse_args()
    np.seterr(all="ignore")
    return {"generate": cmd_generate, "check": cmd_check}.get(a.cmd, cmd_adhoc)(a)


if __name__ == "__main__":
    sys.exit(main())
