#!/usr/bin/env python3
"""Writes jagged_basics_expected.txt: what examples/jagged_basics.cpp must print — the "Awkward
Arrays on GPUs" walkthrough's steps run by Awkward itself, each value as a notebook shows it (the
text of _repr_mimebundle_'s HTML body). Awkward runs on its cpu backend here (the example is
compared when run as `jagged_basics cpu`).

    build/venv/bin/python3 tests/data/gen_jagged_basics_expected.py > tests/data/jagged_basics_expected.txt
"""
import html

import awkward as ak
import numpy as np


def display(x):
    return html.unescape(x._repr_mimebundle_()["text/html"]).removeprefix("<pre>").removesuffix("</pre>")


print(">>> array_cpu = ak.Array([[0, 1.1, 2.2], [], [3.3, 4.4], [5.5], [6.6, 7.7, 8.8, 9.9]] * 10000)")
array_cpu = ak.Array([[0, 1.1, 2.2], [], [3.3, 4.4], [5.5], [6.6, 7.7, 8.8, 9.9]] * 10000)
print(">>> ak.backend(array_cpu)")
print(repr(ak.backend(array_cpu)))
print('>>> array_gpu = ak.to_backend(array_cpu, "cpu")')
array_gpu = ak.to_backend(array_cpu, "cpu")
print(">>> ak.backend(array_gpu)")
print(repr(ak.backend(array_gpu)))
print(">>> ak.num(array_gpu)")
print(display(ak.num(array_gpu)))
print(">>> array_gpu[100:]")
print(display(array_gpu[100:]))
print(">>> np.sqrt(array_gpu)")
print(display(np.sqrt(array_gpu)))
