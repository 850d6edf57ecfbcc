"""The runner's files (inputs written for it, results read back) and the comparison with numpy.

Integers and bool must be identical; floats bit-identical (NaN equal to NaN, the sign of zero
checked) where numpy's error bound is 0, else within the bound (npeval.py); elements whose bound is
infinite are not checked. The result dtype and shape must be numpy's, and every input buffer must
hold afterwards exactly what numpy's leaves it with (the written view of the destination aside).
"""
import numpy as np

import fuzz_common
from emit import fnv1a


def _bound(v):
    return "n" if v is None else str(v)


def write_inputs(path, items):
    """items: [(case, [Variant])]."""
    with open(path, "w") as fh:
        for case, variants in items:
            fh.write("case %s %x %d\n" % (case.name, fnv1a(case.statement_cpp()), len(variants)))
            for var in variants:
                fh.write("variant %d %d\n" % (len(var.bases), len(var.views)))
                for b in var.bases:
                    data = b.tobytes().hex() or "-"
                    fh.write("base %s %d %s %s\n" % (b.dtype.name, b.ndim, " ".join(map(str, b.shape)), data))
                for v in var.views:
                    parts = ["leaf", str(v.base), str(len(v.slices))]
                    for s in v.slices:
                        parts += ["i", str(s[1])] if s[0] == "i" else ["r", _bound(s[1]), _bound(s[2]), str(s[3])]
                    axes = v.axes or []
                    parts += [str(len(axes))] + [str(a) for a in axes]
                    fh.write(" ".join(parts) + "\n")


class Run:
    def __init__(self, mode, ok, dtype=None, shape=None, data=None, bases=None, error=None, message=None):
        self.mode, self.ok, self.dtype, self.shape, self.data = mode, ok, dtype, shape, data
        self.bases, self.error, self.message = bases or [], error, message
        self.second = None  # jf::eval(e1, e2): the second output, a Run of its own


def _parse_ok(mode, w):
    dtype, nd = w[0], int(w[1])
    return Run(mode, True, dtype, tuple(int(x) for x in w[2:2 + nd]), w[2 + nd])


def _parse_run(mode, w, follow):
    """A run line's words after the mode, with its "second" and "base" lines."""
    if w[0] != "ok":
        return Run(mode, False, error=w[1], message=" ".join(w[2:]))
    r = _parse_ok(mode, w[1:])
    second = follow("second ")
    if second is not None:
        r.second = _parse_ok(mode, second.split(" ")[1:])
    base = follow("base ")
    while base is not None:
        r.bases.append(base[5:])
        base = follow("base ")
    return r


def read_results(path):
    """{case name: {variant: [Run]}}, the modes the runner used and whether it finished."""
    return fuzz_common.read_results(path, "modes", _parse_run)


def decode(hexdata, dtype, shape):
    raw = b"" if hexdata == "-" else bytes.fromhex(hexdata)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


def fmt(x):
    if isinstance(x, (np.floating, float)):
        return repr(float(x)) if not (x == 0 and np.signbit(x)) else "-0.0"
    return repr(x.item() if hasattr(x, "item") else x)


def mismatches(got, want, err):
    """Boolean mask of elements that differ beyond the bound."""
    if want.dtype.kind != "f":
        return (got != want) & ~np.isinf(err)
    with np.errstate(all="ignore"):
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w)
        exact = err == 0
        same = (g == w) & (np.signbit(g) == np.signbit(w))
        close = (np.abs(g - w) <= err) | ((g == w) & ~exact)
        ok = both_nan | np.where(exact, same, close) | np.isinf(err)
    return ~ok


def check_run(case, variant, exp, run, leaf_arrays, limit=5):
    """Problems (strings) of one run against numpy's expectation; empty when it agrees."""
    if exp["status"] == "error":
        if run.ok:
            return ["numpy raises %s (%s) but jetfuse returned a result" % (exp["error"], exp["message"])]
        # numpy's OverflowError for a weak int is jf::dtype_error, its AxisError jf::axis_error, an
        # empty reduction without identity jf::value_error, shapes that do not broadcast jf::shape_error
        if run.error not in exp["accept"]:
            return ["numpy raises %s (%s); jetfuse threw %s: %s (expected %s)" % (
                exp["error"], exp["message"], run.error, run.message, " or ".join(exp["accept"]))]
        return []
    if not run.ok and run.error in exp.get("or_error", ()):
        return []  # a case where numpy's own functions disagree (npeval.py says which)
    if not run.ok:
        return ["jetfuse threw %s: %s" % (run.error, run.message)]
    problems = check_values(run, exp["value"], exp["err"], exp["dtype"], leaf_arrays, limit)
    if exp["second"] is not None:
        if run.second is None:
            problems.append("jf::eval(e1, e2) returned one output")
        else:
            v2, e2 = exp["second"]
            problems += ["second output: " + p for p in check_values(run.second, v2, e2, v2.dtype.name,
                                                                       leaf_arrays, limit)]
    # every base buffer: untouched, except the elements the destination view covers
    written = exp["written"]
    for k, (b_exp, hexdata) in enumerate(zip(exp["bases"], run.bases)):
        b_got = decode(hexdata, b_exp.dtype, b_exp.shape)
        mask = written[1] if written and written[0] == k else np.zeros(b_exp.shape, dtype=bool)
        diff = mismatches(b_got, b_exp, np.zeros(b_exp.shape)) & ~mask
        if diff.any():
            ix = tuple(int(x) for x in np.argwhere(diff)[0]) if diff.ndim else ()
            problems.append("input buffer b%d changed outside the destination: %d elements, first %s: %s, was %s"
                            % (k, diff.sum(), list(ix), fmt(b_got[ix]), fmt(b_exp[ix])))
    return problems


def check_values(run, want, err, want_dtype, leaf_arrays, limit):
    problems = []
    if run.dtype != want_dtype:
        problems.append("result dtype %s, numpy %s" % (run.dtype, want_dtype))
    if tuple(run.shape) != tuple(want.shape):
        problems.append("result shape %s, numpy %s" % (tuple(run.shape), tuple(want.shape)))
    if problems:
        return problems
    got = decode(run.data, run.dtype, run.shape)
    bad = mismatches(got, want, err)
    if bad.any():
        idx = np.argwhere(bad)[:limit] if bad.ndim else [()]
        problems.append("%d of %d elements differ; first:" % (bad.sum(), bad.size))
        for ix in idx:
            ix = tuple(int(k) for k in ix)
            ins = []
            for n, a in enumerate(leaf_arrays):
                try:
                    ins.append("a%d=%s" % (n, fmt(np.broadcast_to(a, want.shape)[ix])))
                except ValueError:
                    pass
            problems.append("  %s: jetfuse %s, numpy %s (bound %s)  inputs: %s" % (
                list(ix), fmt(got[ix]), fmt(want[ix]), fmt(err[ix]), " ".join(ins)))
    return problems
