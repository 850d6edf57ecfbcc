"""How the table scripts beside this file write values and shapes (imported by them; Python puts a
script's own directory on its path, so `python3 tests/data/gen_x.py` finds this module)."""
import numpy as np


def text(x):
    """Values in C order: floats with float.hex (exact), integers in decimal, bools as 0/1; "-" when
    there are none."""
    x = np.asarray(x).ravel()
    if x.size == 0:
        return "-"
    if x.dtype.kind == "f":
        return " ".join(float(e).hex() for e in x)
    return " ".join(str(int(e)) for e in x)


def shape_text(s):
    """A shape as 2x3, "scalar" for 0-d."""
    return "x".join(str(e) for e in s) if len(s) else "scalar"


def awkward_result_text(r):
    """An Awkward result as one line of words ("None" for a missing value) and its dtype without
    the option mark; anything else through numpy."""
    import awkward as ak
    if isinstance(r, ak.Array):
        vals = r.to_list()
        dtype = str(ak.type(r).content).replace("?", "")
        if not vals:
            return "-", dtype
        words = []
        for v in vals:
            words.append("None" if v is None else text(np.asarray(v, dtype=dtype)))
        return " ".join(words), dtype
    return text(np.asarray(r)), str(np.asarray(r).dtype)
