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

import numpy as np

import exprgen as eg
from optable import INPLACE, is_float

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

WIDE = np.float64  # error intervals are evaluated in float64
PERIODIC = ("sin", "cos", "tan")


class NumpyRejects(Exception):
    """numpy has no loop for the operation (a TypeError): the tree is not a valid test."""


def ulp(x, dtype):
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        s = np.spacing(np.abs(x.astype(dtype))).astype(WIDE)
    return np.where(np.isfinite(s), s, 0.0)


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
            # jetfuse computes float functions of bool in float32, numpy in float16 (documented).
            if np.result_type(*vals) == np.bool_:
                vals = [v.astype(np.float32) if isinstance(v, np.ndarray) else v for v in vals]
        if op.code == "power":
            a, b = vals
            if np.result_type(a, b).kind in "iu":
                # Integer to a negative power is 0 in jetfuse (documented; numpy raises).
                if isinstance(b, (bool, int)):
                    return fn(a, b) if b >= 0 else np.zeros_like(fn(a, 0))
                neg = np.asarray(b) < 0
                r = fn(a, np.where(neg, 0, b).astype(np.asarray(b).dtype))
                return np.where(neg, 0, r).astype(r.dtype)
        return fn(*vals)

    def call(self, node, env):
        vals, errs = zip(*[self.ev(a, env) for a in node.args])
        vals, errs = list(vals), list(errs)
        op = node.sp.op
        try:
            center = np.asarray(self.np_fn(node.sp, vals))
        except TypeError as e:
            raise NumpyRejects(str(e))
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
            return center, self.propagate(fn, [np.asarray(v)], [e], center)
        if isinstance(node, eg.Clip):
            vals, errs = zip(*[self.ev(a, env) for a in node.args])
            try:
                center = np.asarray(np.clip(*vals))
            except TypeError as ex:
                raise NumpyRejects(str(ex))
            err = self.propagate(lambda *v: np.clip(*v), list(vals), list(errs), center)
            x = np.asarray(vals[0])
            for bound in vals[1:]:  # a clip bound is a minimum/maximum operand
                err = self.minmax_zero([x, bound], center, err)
            return center, err
        return self.call(node, env)

    # ---- a whole case ----------------------------------------------------------------------------
    def expected(self, case, variant):
        """numpy's result: dict(status, dtype, shape, value, err, bases, written) or an error."""
        bases = [b.copy() for b in variant.bases]
        env = variant.leaf_arrays(bases)
        with np.errstate(all="ignore"):
            try:
                value, err = self.ev(case.root, env)
            except OverflowError as e:  # a weak integer out of the array's range
                return {"status": "error", "error": "OverflowError", "message": str(e)}
            value = np.asarray(value)
            err = np.broadcast_to(np.asarray(err, dtype=WIDE), value.shape)
            written = None
            second = None
            if case.dest == "new":
                result = value
            elif case.dest == "pair":
                # jf::eval(e1, e2): every output has the broadcast shape of all the leaves
                v2, e2 = self.ev(case.root2, env)
                shape = np.broadcast_shapes(*[a.shape for a in env])
                result = np.broadcast_to(value, shape)
                v2 = np.broadcast_to(np.asarray(v2), shape)
                second = (v2, np.broadcast_to(np.asarray(e2, dtype=WIDE), shape))
            elif case.dest == "typed":
                result = value.astype(case.dest_dtype)
                err = self.propagate(lambda x: np.asarray(x).astype(case.dest_dtype), [value], [err], result)
            else:
                d = env[case.dest_leaf]
                if case.dest == "assign":
                    newval = np.broadcast_to(value, d.shape).astype(d.dtype)  # numpy's unsafe cast
                    err = self.propagate(lambda x: np.asarray(x).astype(d.dtype), [value], [err], np.asarray(newval))
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
                "err": err, "bases": bases, "written": written, "second": second}

    @staticmethod
    def written_mask(variant, leaf):
        """Which elements of the destination's base the destination view covers."""
        v = variant.views[leaf]
        b = variant.bases[v.base]
        mask = np.zeros(b.shape, dtype=bool)
        v.apply(mask)[...] = True
        return v.base, mask
