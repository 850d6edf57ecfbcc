"""numpy's answer for a case on a variant, with a per-element error bound.

Every node is evaluated with numpy. Alongside its value, each node carries an absolute error bound
per element: 0 where the value must be bit-identical (integers, bool, + - * /, sqrt, casts,
rounding, min/max... on exact operands), a finite bound where a transcendental function (whose
implementations differ: numpy's SIMD/SVML code, glibc, CUDA's libdevice) fed the value, and inf
where the element cannot be checked (an integer or bool decided by an inexact value at a boundary,
e.g. `sin(x) < 0.5` when sin(x) is within its error of 0.5). Bounds propagate by evaluating each
operation at the corners of its operands' error intervals, so cancellation and amplification
(exp of an inexact value, x - y of nearby inexact values) are accounted for.

Documented differences from numpy (docs/design.md) are emulated, never hidden: float functions of
bool compute in float32 (numpy: float16), and an integer to a negative integer power is 0 (numpy
raises). Known, not yet fixed differences are excluded where they occur and counted by name.
"""
import itertools
import math
import warnings

import numpy as np

import exprgen as eg
from optable import INPLACE, is_float, op_types, promote

# Error bound of each transcendental operation, in ulps of its result dtype: numpy's SIMD code
# (SVML on AVX-512 for float64, its own or SVML for float32: at most 4 ulp) plus the larger of glibc's
# (jetfuse on the CPU, at most 3 ulp for these) and CUDA's documented maximum (CUDA Math API,
# "Mathematical Functions Appendix", per function and precision): (float64, float32).
_CUDA_ULP = {
    "cbrt": (1, 1), "exp": (1, 2), "exp2": (1, 2), "expm1": (1, 1), "log": (1, 1), "log2": (1, 1),
    "log10": (1, 2), "log1p": (1, 1), "sin": (2, 2), "cos": (2, 2), "tan": (2, 4), "arcsin": (2, 2),
    "arccos": (2, 2), "arctan": (2, 2), "sinh": (2, 3), "cosh": (1, 2), "tanh": (1, 2),
    "arcsinh": (3, 3), "arccosh": (3, 4), "arctanh": (2, 3), "power": (2, 4), "arctan2": (2, 3),
    "hypot": (2, 3),
}
ULP_BOUND = {op: (4 + max(3, d), 4 + max(3, f)) for op, (d, f) in _CUDA_ULP.items()}

warnings.filterwarnings("ignore", category=RuntimeWarning)  # mean of empty slice, ddof >= n...
WIDE = np.float64  # error intervals are evaluated in float64
PERIODIC = ("sin", "cos", "tan")


class NumpyRejects(Exception):
    """numpy has no loop for the operation (a TypeError): the tree is not a valid test."""


class NumpyRaises(Exception):
    """numpy raises for these shapes (an empty reduction without identity, an axis out of bounds,
    shapes that do not broadcast): jetfuse must throw one of `accept` (jf:: error kinds)."""

    def __init__(self, error, message, accept):
        super().__init__(message)
        self.error, self.message, self.accept = error, message, accept


def ulp(x, dtype):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        s = np.spacing(np.abs(x.astype(dtype))).astype(WIDE)
    return np.where(np.isfinite(s), s, 0.0)


# numpy before 2.5 wraps a Python int outside the dtype np.where selects in (numpy PR 30803).
NUMPY_WHERE_WRAPS = np.lib.NumpyVersion(np.__version__) < "2.5.0"

UNDEFINED_CAST_TARGETS = ("int8", "int16", "uint8", "uint16", "uint32", "uint64")


def _arr(v):
    return v if isinstance(v, (bool, int, float)) else np.asarray(v)


class Evaluator:
    def __init__(self, table, counters, exclusions=True):
        self.table = table
        self.counters = counters  # exclusion name -> count of elements/cases excluded
        self.exclusions = exclusions

    def count(self, name, n=1):
        self.counters[name] = self.counters.get(name, 0) + int(n)

    # ---- operations ----------------------------------------------------------------------------
    def np_fn(self, sp, vals):
        """numpy's operation for a spelling, with the documented differences emulated."""
        op = sp.op
        if sp is eg.POSITIVE:
            return np.positive(vals[0])
        fn = getattr(np, op.numpy)
        if op.rule == "float_fn":
            # jetfuse computes float functions of bool, int8 and uint8 in float32, numpy in float16
            # (documented): numpy's loop is float16 when every operand casts to it safely.
            probe = [np.zeros(0, v.dtype) if isinstance(v, np.ndarray) else v for v in vals]
            with np.errstate(all="ignore"):
                if fn(*probe).dtype == np.float16:
                    vals = [v.astype(np.float32) if isinstance(v, np.ndarray) else v for v in vals]
        if op.code == "power":
            a, b = vals
            if np.result_type(a, b).kind in "iu":
                # Integer to a negative power is 0 in jetfuse (documented; numpy raises).
                if isinstance(b, (bool, int)):
                    rt = np.result_type(a, b)
                    if not isinstance(b, bool) and not np.iinfo(rt).min <= b <= np.iinfo(rt).max:
                        # a weak int outside the computed dtype (uint64 ** -1): numpy's OverflowError
                        # comes before its negative-power error (seed 291152 case 276)
                        raise OverflowError("Python integer %d out of bounds for %s" % (b, rt.name))
                    return fn(a, b) if b >= 0 else np.zeros_like(fn(a, 0))
                neg = np.asarray(b) < 0
                r = fn(a, np.where(neg, 0, b).astype(np.asarray(b).dtype))
                return np.where(neg, 0, r).astype(r.dtype)
        if op.code == "where" and NUMPY_WHERE_WRAPS:
            # numpy 2.5 raises OverflowError for a Python int outside the dtype where selects in
            # (numpy PR 30803), as jetfuse does; 2.4 wrapped it silently: expect 2.5's answer.
            r = fn(*vals)
            if r.dtype.kind in "iu":
                info = np.iinfo(r.dtype)
                for v in vals[1:]:
                    if isinstance(v, int) and not isinstance(v, bool) and not info.min <= v <= info.max:
                        raise OverflowError("Python integer %d out of bounds for %s" % (v, r.dtype.name))
            return r
        return fn(*vals)

    def call(self, node, env):
        vals, errs = zip(*[self.ev(a, env) for a in node.args])
        vals, errs = list(vals), list(errs)
        op = node.sp.op
        try:
            center = np.asarray(self.np_fn(node.sp, vals))
        except TypeError as e:
            raise NumpyRejects(str(e))
        except ValueError as e:  # operands that do not broadcast (shapes around reductions)
            raise NumpyRaises("ValueError", str(e), ("shape_error",))
        if op.code == "where":
            # An inexact condition is converted to bool: it decides only where 0 is in its interval.
            c = np.asarray(vals[0])
            c_err = np.asarray(errs[0])
            err = np.where(c.astype(bool), errs[1], errs[2])
            with np.errstate(all="ignore"):
                undecided = np.isinf(c_err) | ((c_err > 0) & (np.abs(c.astype(WIDE)) <= c_err))
            err = np.where(undecided, np.inf, err)
            return center, np.broadcast_to(err, center.shape)
        own = ULP_BOUND.get(op.code) if is_float(center.dtype.name) else None
        err = self.propagate(lambda *v: self.np_fn(node.sp, v), vals, errs, center)
        if op.code == "remainder" and center.dtype.kind == "f":
            # A sawtooth: where the quotient is not constant over the operands' intervals the
            # remainder can be anything in [0, y) (a huge x over an inexact y).
            err = np.where(self.varies(np.floor_divide, vals, errs, center.shape), np.inf, err)
        if op.code in PERIODIC:
            # The corners of a wide interval say nothing about a periodic function (sin of an
            # inexact 1e178): unknown unless the operand's error is small against the period.
            e0 = np.broadcast_to(np.asarray(errs[0], dtype=WIDE), center.shape)
            err = np.where(e0 > 1e-3, np.inf, err)
        if own is not None:
            own_err = (own[0] if center.dtype == np.float64 else own[1]) * ulp(center, center.dtype)
            # An exact zero from exact operands is exact everywhere (C99 Annex F: f(+-0) = +-0 for
            # the odd functions, log(1) = +0, acos(1) = +0, ...): not a few ulps of 0 either way.
            exact_in = np.ones(center.shape, dtype=bool)
            for e in errs:
                exact_in &= np.broadcast_to(np.asarray(e) == 0, center.shape)
            err = err + np.where(exact_in & (center == 0), 0.0, own_err)
        if op.code in ("fmin", "fmax"):
            err = self.minmax_zero(vals, center, err)
        if op.code == "power" and not isinstance(node.args[1], eg.Scalar):
            err = self.power_half(vals, center, err)
        return center, err

    # Documented differences from numpy (docs/design.md, "Differences from numpy"): exclude exactly
    # the elements they touch. minimum/maximum of +-0 match numpy (the second value) since issue 7.
    def minmax_zero(self, vals, center, err):
        """fmin/fmax (and clip's bounds) of +0 and -0: numpy's zero depends on which loop runs (the
        array's length), jetfuse always returns the second."""
        a, b = (np.broadcast_to(np.asarray(v), center.shape) for v in vals)
        if center.dtype.kind != "f":
            return err
        with np.errstate(all="ignore"):
            tie = (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
        if tie.any() and self.exclusions:
            self.count("documented: fmin/fmax/clip of +0 and -0", tie.sum())
            err = np.where(tie, np.inf, err)
        return err

    def power_half(self, vals, center, err):
        """power(x, y) with an ARRAY exponent y = 0.5 at x = -0.0 and -inf: numpy calls pow (+0, inf),
        jetfuse takes numpy's scalar-exponent fast path (sqrt: -0.0, nan) for every element."""
        a, b = (np.broadcast_to(np.asarray(v), center.shape) for v in vals)
        if center.dtype.kind != "f":
            return err
        with np.errstate(all="ignore"):
            hit = (b == 0.5) & (((a == 0) & np.signbit(a)) | (a == -np.inf))
        if hit.any() and self.exclusions:
            self.count("documented: power with an array exponent 0.5 at -0.0 and -inf", hit.sum())
            err = np.where(hit, np.inf, err)
        return err

    def propagate(self, fn, vals, errs, center):
        """Error bound of fn(vals) given the operands' bounds: deviation over the corners of the
        operands' error intervals, evaluated in float64, plus one rounding of the result."""
        shape = center.shape
        errs = [np.broadcast_to(np.asarray(e, dtype=WIDE), shape) for e in errs]
        unknown = np.zeros(shape, dtype=bool)
        for e in errs:
            unknown |= np.isinf(e)
        # operands with a finite error somewhere are perturbed; infinite errors are just unknown
        inexact = [i for i, e in enumerate(errs) if (np.isfinite(e) & (e > 0)).any()]
        if not inexact:
            return np.where(unknown, np.inf, 0.0)
        out_float = center.dtype.kind == "f"
        with np.errstate(all="ignore"):
            if out_float:
                wide = [v.astype(WIDE) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v for v in vals]
                c64 = np.broadcast_to(np.asarray(fn(*wide), dtype=WIDE), shape)
            dev = np.zeros(shape)
            for signs in itertools.product((-1.0, 1.0), repeat=len(inexact)):
                args = list(vals)
                for s, i in zip(signs, inexact):
                    e = np.where(np.isfinite(errs[i]), errs[i], 0.0)
                    args[i] = np.asarray(vals[i], dtype=WIDE) + s * e
                if out_float:
                    args = [v.astype(WIDE) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v for v in args]
                    r = np.broadcast_to(np.asarray(fn(*args), dtype=WIDE), shape)
                    same_class = (np.isnan(r) == np.isnan(c64)) & (np.isinf(r) == np.isinf(c64))
                    both_inf = np.isinf(r) & np.isinf(c64)
                    unknown |= ~same_class | (both_inf & (r != c64))
                    d = np.abs(r - c64)
                    dev = np.maximum(dev, np.where(np.isfinite(d), d, 0.0))
                else:
                    # an integer or bool result: it must not change within the interval
                    r = np.broadcast_to(np.asarray(fn(*self._narrow(args, vals))), shape)
                    unknown |= (r != center)
            errin = np.zeros(shape, dtype=bool)
            for i in inexact:
                errin |= np.isfinite(errs[i]) & (errs[i] > 0)
            if out_float:
                err = dev * (1 + 1e-9) + np.where(errin, ulp(center, center.dtype), 0.0)
            else:
                err = np.zeros(shape)
        return np.where(unknown, np.inf, err)

    @staticmethod
    def varies(fn, vals, errs, shape):
        """Where fn (a step function) is not constant over the corners of the operands' errors."""
        errs = [np.broadcast_to(np.asarray(e, dtype=WIDE), shape) for e in errs]
        with np.errstate(all="ignore"):
            wide = [v.astype(WIDE) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v for v in vals]
            center = np.broadcast_to(np.asarray(fn(*wide), dtype=WIDE), shape)
            out = np.zeros(shape, dtype=bool)
            for signs in itertools.product((-1.0, 1.0), repeat=len(vals)):
                args = [np.asarray(v, dtype=WIDE) + s * np.where(np.isfinite(e), e, 0.0) if e.any() else w
                        for v, w, e, s in zip(vals, wide, errs, signs)]
                r = np.broadcast_to(np.asarray(fn(*args), dtype=WIDE), shape)
                out |= ~((r == center) | (np.isnan(r) & np.isnan(center)))
        return out

    @staticmethod
    def _narrow(args, vals):
        """Perturbed operands back in their dtype for an operation with an exact result (a
        comparison of float32 values compares in float32)."""
        out = []
        for a, v in zip(args, vals):
            if isinstance(v, np.ndarray) and isinstance(a, np.ndarray) and a.dtype != v.dtype:
                with np.errstate(all="ignore"):
                    a = a.astype(v.dtype)
            out.append(a)
        return out

    def undefined_cast(self, x, x_err, center, err):
        """A float to a narrow or unsigned integer (int8, int16, uint8 ... uint64) that is NaN or
        outside the target's range (or may be, given its error): numpy leaves it undefined (on x86-64
        its contiguous and strided loops disagree), jetfuse defines it (scalar_ops.hpp's jf_cast):
        not checked. int32 and int64 stay checked (numpy and jetfuse give the minimum integer)."""
        x = np.asarray(x)
        if x.dtype.kind != "f" or center.dtype.name not in UNDEFINED_CAST_TARGETS:
            return err
        info = np.iinfo(center.dtype)
        with np.errstate(all="ignore"):
            xw = np.broadcast_to(x, center.shape).astype(WIDE)
            xe = np.broadcast_to(np.asarray(x_err, dtype=WIDE), center.shape)
            bad = ~((xw - xe > float(info.min) - 1) & (xw + xe < float(info.max) + 1))
        if bad.any():
            self.count("numpy: undefined float-to-int cast (NaN, out of range)", bad.sum())
            err = np.where(bad, np.inf, np.broadcast_to(err, center.shape))
        return err

    # ---- reductions ----------------------------------------------------------------------------
    def reduce(self, node, env):
        """np.<reducer>(x, axis, keepdims, ddof) and its bound, lane by lane (a lane: the elements
        one result element reduces). Exact (bound 0): integer and bool reductions (sums and products
        wrap in int64 as numpy's), min/max/argmin/argmax/any/all/count_nonzero of exact operands.
        Floating sums, means, products, variances depend on the order of combination (numpy sums
        pairwise, jetfuse in its own fixed order): bounded below (`sum_bound`, ...)."""
        v, e = self.ev(node.arg, env)
        x = np.asarray(v)
        e = np.broadcast_to(np.asarray(e, dtype=WIDE), x.shape)
        kw = {"axis": node.axis, "keepdims": node.keepdims}
        if node.red.form == "moment" and node.ddof:
            kw["ddof"] = node.ddof
        try:
            center = np.asarray(getattr(np, node.red.name)(x, **kw))
        except np.exceptions.AxisError as ex:
            raise NumpyRaises("AxisError", str(ex), ("axis_error",))
        except ValueError as ex:  # duplicate axes (jf::axis_error), an empty min/max/argmin/argmax
            accept = ("axis_error",) if "axis" in str(ex) else ("value_error",)
            raise NumpyRaises("ValueError", str(ex), accept)
        if x.ndim == 0 and node.axis is not None:
            # numpy's ufunc reductions (np.sum, np.nanmean of floats, argmin, count_nonzero...)
            # accept axis 0 and -1 of a 0-d array (np.sum(np.array(2.), axis=0) is 2.) where np.mean
            # raises AxisError, as jetfuse does for every reducer: either answer is accepted.
            if self.exclusions:
                self.or_error += ("axis_error",)
            self.count("numpy: axis 0 or -1 of a 0-d operand (np.sum(np.array(2.), axis=0))")
            kw["axis"] = None
        if center.dtype.name == "int64" or center.dtype == np.intp:
            center = center.astype(np.int64)
        xl, el = lanes(x, kw["axis"]), lanes(e, kw["axis"])
        k = xl.shape[1]
        kind = node.red.kind
        if xl.shape[0] == 0:
            return center, np.zeros(center.shape)
        unknown = np.isinf(el).any(axis=1)
        inexact = (el > 0).any(axis=1)
        flat = center.reshape(-1)
        if kind in ("any", "all", "count_nonzero"):
            nz = xl != 0
            undecided = np.isinf(el) | ((el > 0) & (np.abs(xl.astype(WIDE)) <= el))
            true_ = (nz & ~undecided).any(axis=1)
            false_ = (~nz & ~undecided).any(axis=1)
            und = undecided.any(axis=1)
            if kind == "any":
                unknown = und & ~true_
            elif kind == "all":
                unknown = und & ~false_
            else:
                unknown = und
            err = np.zeros(flat.shape)
        elif xl.dtype.kind != "f" and kind not in ("mean", "nanmean", "var", "std"):
            err = np.zeros(flat.shape)  # integers and bool: exact (an integer operand is exact or unknown)
        elif kind in ("min", "max", "nanmin", "nanmax"):
            err = np.where(inexact, el.max(axis=1) if k else 0.0, 0.0)
            if xl.dtype.kind == "f":
                # numpy's zero of min/max of +0 and -0 depends on its loop (np.min([0., -0.]) is -0.,
                # np.min of a longer array of them +0.): the sign of such a zero is not checked.
                zeros = xl == 0
                tie = (zeros & np.signbit(xl)).any(axis=1) & (zeros & ~np.signbit(xl)).any(axis=1) & (flat == 0)
                if tie.any() and self.exclusions:
                    self.count("numpy: the zero of min/max of +0 and -0 depends on its loop", tie.sum())
                    err = np.where(tie, np.nextafter(0.0, 1.0), err)
        elif kind in ("argmin", "argmax"):
            xw = xl.astype(WIDE)
            if kind == "argmin":
                xw = -xw
            lo, hi = xw - el, xw + el
            best = np.nanmax(np.where(np.isnan(xw), -np.inf, lo), axis=1) if k else np.zeros(len(xw))
            cand = hi >= best[:, None]
            ambiguous = (cand.sum(axis=1) > 1) & (cand & (el > 0)).any(axis=1) & ~np.isnan(xw).any(axis=1)
            unknown = unknown | ambiguous
            err = np.zeros(flat.shape)
        elif kind in ("sum", "nansum", "mean", "nanmean"):
            t = xl.astype(WIDE)
            count = np.full(len(t), float(k))
            if kind.startswith("nan") and xl.dtype.kind == "f":
                count = (~np.isnan(t)).sum(axis=1).astype(WIDE)
                el = np.where(np.isnan(t), 0.0, el)
                t = np.where(np.isnan(t), 0.0, t)
            acc = center.dtype if kind in ("sum", "nansum") else np.dtype(center.dtype)
            serr, sunknown = sum_bound(t, el, acc)
            unknown = unknown | sunknown
            if kind in ("mean", "nanmean"):
                with np.errstate(all="ignore"):
                    err = np.where(count > 0, serr / np.maximum(count, 1), 0.0) + ulp(flat, center.dtype)
            else:
                err = serr + np.where(inexact, ulp(flat, center.dtype), 0.0)
        elif kind in ("prod", "nanprod"):
            t = xl.astype(WIDE)
            if kind == "nanprod":
                el = np.where(np.isnan(t), 0.0, el)
                t = np.where(np.isnan(t), 1.0, t)
            perr, punknown = prod_bound(t, el, flat.astype(WIDE), center.dtype)
            unknown = unknown | punknown
            err = perr
        else:  # var, std
            verr, vunknown, var = var_bound(xl.astype(WIDE), el, node.ddof, center.dtype)
            unknown = unknown | vunknown
            if kind == "std":
                with np.errstate(all="ignore"):
                    s0 = np.sqrt(var)
                    up = np.sqrt(var + verr) - s0
                    down = s0 - np.sqrt(np.maximum(var - verr, 0.0))
                    err = np.where(verr > 0, np.maximum(up, down) * (1 + 1e-9) + ulp(flat, center.dtype), 0.0)
                    err = np.where(np.isfinite(err), err, 0.0)
            else:
                err = verr
        err = np.where(unknown, np.inf, err)
        return center, err.reshape(center.shape)

    def ev(self, node, env):
        if isinstance(node, eg.Leaf):
            v = env[node.idx]
            return v, 0.0
        if isinstance(node, eg.Scalar):
            return node.value, 0.0
        if isinstance(node, eg.Cast):
            v, e = self.ev(node.arg, env)
            with np.errstate(all="ignore"):
                center = np.asarray(v).astype(node.dtype)
            fn = lambda x: np.asarray(x).astype(node.dtype)
            return center, self.undefined_cast(v, e, center, self.propagate(fn, [np.asarray(v)], [e], center))
        if isinstance(node, eg.Reduce):
            return self.reduce(node, env)
        if isinstance(node, eg.Clip):
            vals, errs = zip(*[self.ev(a, env) for a in node.args])
            try:
                center = np.asarray(np.clip(*vals))
            except TypeError as ex:
                raise NumpyRejects(str(ex))
            except ValueError as ex:
                raise NumpyRaises("ValueError", str(ex), ("shape_error",))
            err = self.propagate(lambda *v: np.clip(*v), list(vals), list(errs), center)
            x = np.asarray(vals[0])
            for bound in vals[1:]:  # a clip bound is a minimum/maximum operand
                err = self.minmax_zero([x, bound], center, err)
            if center.dtype.kind == "f":  # and so is maximum(x, lo) for hi: a -0.0 met by +0.0
                with np.errstate(all="ignore"):
                    m = np.maximum(x.astype(center.dtype), np.asarray(vals[1]).astype(center.dtype))
                err = self.minmax_zero([m, vals[2]], center, err)
            return center, err
        return self.call(node, env)

    # ---- a whole case ----------------------------------------------------------------------------
    def expected(self, case, variant):
        """numpy's result: dict(status, dtype, shape, value, err, bases, written) or an error."""
        self.or_error = ()  # jf:: errors also accepted instead of numpy's value (reduce())
        r = self._expected(case, variant)
        if r["status"] == "error":
            # jetfuse raises where numpy accepted a quirk (axis -1 of a 0-d operand) before numpy
            # failed later in the same expression: either error is accepted.
            r["accept"] = tuple(r["accept"]) + tuple(self.or_error)
            if r["error"] != "OverflowError" and self.scalar_out_of_range(case):
                # design.md, Differences from numpy: jetfuse checks weak scalars when it gathers the
                # leaves, before the shape and axis errors numpy may meet first.
                self.count("documented: a weak scalar's range error before numpy's " + r["error"])
                r["accept"] = tuple(r["accept"]) + ("dtype_error",)
        return r

    def scalar_out_of_range(self, case):
        """Whether a weak Python int of the tree is outside the integer dtype its operation computes
        in (numpy raises OverflowError there when it gets to it; comparisons do not)."""
        for root in (case.root, getattr(case, "root2", None)):
            for node in eg.walk(root):
                if isinstance(node, eg.Clip) and self.clip_bound_out_of_range(node):
                    return True
                if isinstance(node, eg.Call) and node.sp.op.rule == "compare":
                    if self.compared_with_bool_out_of_range(node):
                        return True
                    continue
                if not isinstance(node, eg.Call) or node.sp is eg.POSITIVE:
                    continue
                ts = op_types(node.sp.op, [a.t for a in node.args])
                loop = "int64" if node.sp.op.rule == "logical" else ts[0] if ts else None
                if loop is None or np.dtype(loop).kind not in "iu":
                    continue
                info = np.iinfo(loop)
                for a in node.args:
                    if isinstance(a, eg.Scalar) and a.kind == "int" and not info.min <= a.value <= info.max:
                        return True
        return False

    @staticmethod
    def compared_with_bool_out_of_range(node):
        """A weak int compared with a bool array: numpy compares in int64 and raises OverflowError for
        an int outside it (integer arrays are compared exactly), jetfuse when it gathers the leaves
        (seed 291160 case 223)."""
        info = np.iinfo(np.int64)
        for a, other in ((node.args[0], node.args[-1]), (node.args[-1], node.args[0])):
            if (isinstance(a, eg.Scalar) and a.kind == "int" and not other.t.weak and other.t.dtype == "bool"
                    and not info.min <= a.value <= info.max):
                return True
        return False

    @staticmethod
    def clip_bound_out_of_range(node):
        """jf::clip is minimum(maximum(x, lo), hi): a weak int bound outside the integer dtype of its
        step (lo: maximum's, hi: minimum's) raises when jetfuse gathers the leaves."""
        x, lo, hi = node.args
        low_step = promote(x.t, lo.t)
        for bound, step in ((lo, low_step), (hi, promote(low_step, hi.t))):
            if isinstance(bound, eg.Scalar) and bound.kind == "int" and np.dtype(step.dtype).kind in "iu":
                info = np.iinfo(step.dtype)
                if not info.min <= bound.value <= info.max:
                    return True
        return False

    def _expected(self, case, variant):
        bases = [b.copy() for b in variant.bases]
        env = variant.leaf_arrays(bases)
        with np.errstate(all="ignore"):
            try:
                value, err = self.ev(case.root, env)
            except OverflowError as e:  # a weak integer out of the array's range
                return {"status": "error", "error": "OverflowError", "message": str(e), "accept": ("dtype_error",)}
            except NumpyRaises as e:
                return {"status": "error", "error": e.error, "message": e.message, "accept": e.accept}
            value = np.asarray(value)
            err = np.broadcast_to(np.asarray(err, dtype=WIDE), value.shape)
            written = None
            second = None
            if case.dest == "new":
                result = value
            elif case.dest == "pair":
                # jf::eval(e1, e2): every output has the broadcast shape of all the leaves
                try:
                    v2, e2 = self.ev(case.root2, env)
                except OverflowError as e:
                    return {"status": "error", "error": "OverflowError", "message": str(e), "accept": ("dtype_error",)}
                except NumpyRaises as e:
                    return {"status": "error", "error": e.error, "message": e.message, "accept": e.accept}
                try:  # the broadcast shape of the outputs (without reductions: of all the leaves)
                    shape = np.broadcast_shapes(value.shape, np.shape(v2))
                except ValueError as e:
                    return {"status": "error", "error": "ValueError", "message": str(e), "accept": ("shape_error",)}
                result = np.broadcast_to(value, shape)
                v2 = np.broadcast_to(np.asarray(v2), shape)
                second = (v2, np.broadcast_to(np.asarray(e2, dtype=WIDE), shape))
            elif case.dest == "typed":
                result = value.astype(case.dest_dtype)
                cast = self.propagate(lambda x: np.asarray(x).astype(case.dest_dtype), [value], [err], result)
                err = self.undefined_cast(value, err, result, cast)
            else:
                d = env[case.dest_leaf]
                try:
                    np.broadcast_to(value, d.shape)
                except ValueError as e:  # the value does not fit the destination
                    return {"status": "error", "error": "ValueError", "message": str(e), "accept": ("shape_error",)}
                if case.dest == "assign":
                    newval = np.broadcast_to(value, d.shape).astype(d.dtype)  # numpy's unsafe cast
                    verr = np.broadcast_to(np.asarray(err), d.shape)
                    err = self.propagate(lambda x: np.asarray(x).astype(d.dtype), [value], [err], np.asarray(newval))
                    err = self.undefined_cast(np.broadcast_to(value, d.shape), verr, np.asarray(newval), err)
                else:
                    fn = getattr(np, self.table.ops[INPLACE[case.inplace_op]].numpy)
                    try:
                        newval = fn(d, value, out=d.copy(), casting="same_kind")
                    except TypeError as ex:  # numpy's same_kind casting rule
                        raise NumpyRejects(str(ex))
                    store = lambda x, y: np.asarray(fn(x, y)).astype(d.dtype)
                    err = self.propagate(store, [d.copy(), value], [0.0, err], np.asarray(newval))
                d[...] = newval
                result = d
                written = self.written_mask(variant, case.dest_leaf)
            err = np.broadcast_to(err, result.shape)
        return {"status": "ok", "dtype": result.dtype.name, "shape": result.shape, "value": result,
                "err": err, "bases": bases, "written": written, "second": second, "or_error": self.or_error}

    @staticmethod
    def written_mask(variant, leaf):
        """Which elements of the destination's base the destination view covers."""
        v = variant.views[leaf]
        b = variant.bases[v.base]
        mask = np.zeros(b.shape, dtype=bool)
        v.apply(mask)[...] = True
        return v.base, mask


# ---- reduction bounds ----------------------------------------------------------------------------
def lanes(a, axis):
    """a as (number of results, elements reduced into each), results in C order of the kept axes."""
    a = np.asarray(a)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else tuple(
        x + nd if x < 0 else x for x in (axis if isinstance(axis, tuple) else (axis,)))
    keep = [i for i in range(nd) if i not in axes]
    k = int(np.prod([a.shape[i] for i in axes])) if axes else 1
    n = int(np.prod([a.shape[i] for i in keep])) if keep else 1
    return np.transpose(a, keep + list(axes)).reshape(n, k)


def sum_bound(t, e, acc):
    """Bound of |jetfuse's sum - numpy's sum| per lane of terms t (float64 values of the dtype acc,
    the accumulation's) with errors e. Any order of summation of k terms is within (k-1)u*sum|t| of
    the exact sum (u = eps/2); two orders within k*eps*sum|t|. k <= 2: one rounded addition, the
    same in every order. Non-finite terms decide the result (NaN, or an infinity) unless the finite
    terms may overflow in some order: then the lane is not checked."""
    k = t.shape[1]
    info = np.finfo(acc)
    eps, big = float(info.eps), float(info.max)
    with np.errstate(all="ignore"):
        fin = np.isfinite(t)
        F = np.where(fin, np.abs(t) + e, 0.0).sum(axis=1)
        nan = np.isnan(t).any(axis=1)
        pinf = (t == np.inf).any(axis=1)
        ninf = (t == -np.inf).any(axis=1)
        decided_nan = nan | (pinf & ninf)
        overflow = ~(F * (1 + 2 * k * eps) < big)  # F inf or nan too
        err = (k * eps * 1.01 * F if k > 2 else 0.0) + np.where(fin, e, 0.0).sum(axis=1)
        err = np.where(pinf | ninf | nan, 0.0, err)
    return err, overflow & ~decided_nan


def prod_bound(t, e, center, acc):
    """Bound of a floating product per lane: products overflow or underflow depending on the order
    unless every partial product is within range (the product of the factors' magnitudes clamped
    to >= 1, resp. <= 1, is); a zero, an infinity or a NaN decides the result where they can."""
    k = t.shape[1]
    info = np.finfo(acc)
    eps, lbig, ltiny = float(info.eps), np.log2(float(info.max)) - 1, np.log2(float(info.tiny)) + 1
    with np.errstate(all="ignore"):
        a = np.abs(t)
        fin = np.isfinite(t)
        nan = np.isnan(t).any(axis=1)
        inf = np.isinf(t).any(axis=1)
        zero = ((t == 0) & (e == 0)).any(axis=1)
        straddle = ((e > 0) & (a <= e)).any(axis=1)  # an inexact factor that may be 0 or change sign
        nz = fin & (a > 0)
        lhi = np.where(nz, np.log2(np.maximum(a + e, 1.0)), 0.0).sum(axis=1)
        llo = np.where(nz, np.log2(np.clip(a - e, np.finfo(np.float64).tiny, 1.0)), 0.0).sum(axis=1)
        in_range = (lhi < lbig) & (llo > ltiny)
        phi = np.where(fin, a + e, 1.0).prod(axis=1)
        plo = np.where(fin, np.maximum(a - e, 0.0), 1.0).prod(axis=1)
        c = np.abs(center)
        pert = np.maximum(phi - c, c - plo) * (1 + 1e-9)
        inexact = (e > 0).any(axis=1)
        err = (2.02 * k * eps * c if k > 2 else 0.0) + np.where(inexact, pert + ulp(center, acc), 0.0)
        decided = nan | (inf & zero) | (inf & (llo > ltiny)) | (zero & (lhi < lbig))
        unknown = ~decided & (~in_range | straddle | inf | zero)
        err = np.where(decided, 0.0, err)
    return np.where(np.isfinite(err), err, 0.0), unknown


def var_bound(x, e, ddof, acc):
    """Bound of numpy's two-pass variance sum((x - m)**2) / max(n - ddof, 0) per lane, m = sum(x)/n:
    the computed means differ from the exact one by at most d = u*(sum|x| + |m|), so each computed
    sum of squares is within [D, D + n*d^2] of the exact D before the (n+2)u relative rounding of
    the squares and their sum; input errors e move sqrt(D) by at most ||e||_2. A non-finite element
    makes the lane NaN in every order; n - ddof <= 0 divides by 0 (inf, or NaN where the sum is 0)."""
    n = x.shape[1]
    info = np.finfo(acc)
    eps, big = float(info.eps), float(info.max)
    with np.errstate(all="ignore"):
        fin = np.isfinite(x).all(axis=1)
        xf = np.where(np.isfinite(x), x, 0.0)
        S1 = (np.abs(xf) + e).sum(axis=1)
        m = xf.mean(axis=1) if n else np.zeros(len(x))
        D = ((xf - m[:, None]) ** 2).sum(axis=1)
        d = 0.5 * eps * (S1 + np.abs(m)) * 1.05 if n > 1 else np.zeros(len(x))
        en = np.sqrt((e ** 2).sum(axis=1))
        Din = 2 * np.sqrt(D) * en + en ** 2
        bD = n * d ** 2 + (n + 2) * eps * (D + Din + n * d ** 2) * 1.05 + Din
        overflow = ~(S1 * (1 + 2 * n * eps) < big) | ~((D + bD) * (1 + 4 * n * eps) < big)
        div = max(n - ddof, 0)
        var = D / div if div else np.where(D > 0, np.inf, np.nan)
        if div:
            err = bD / div + ulp(var, acc)
            unknown = fin & overflow
        else:  # inf when the sum of squares is surely > 0, NaN when it is surely 0
            err = np.zeros(len(x))
            unknown = fin & (overflow | ~((D > 2 * bD) | (bD == 0)))
        err = np.where(fin, err, 0.0)
        if n == 0:
            err, unknown = np.zeros(len(x)), np.zeros(len(x), dtype=bool)
    return np.where(np.isfinite(err), err, 0.0), unknown, np.where(fin, var, np.nan)
