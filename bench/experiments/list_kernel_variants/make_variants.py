#!/usr/bin/env python3
"""Variants of jetfuse's generated list kernels (dump_list_kernels.cpp), edited by text, in one
CUDA file for harness.cu: each kernel renamed <name>_<variant> behind one shared prelude.
  gen      the generated kernel as it is
  noheavy  the tile's first/last offsets not read and the heavy (block) path dead: jf_heavy = false
  nolong   noheavy and the medium (warp) path dead too: the ballots are 0
Usage: make_variants.py <dir with listsum.cu, listmax.cu> <out.cuh>"""
import re, sys

src_dir, out = sys.argv[1], sys.argv[2]
prelude, parts = None, []
for name in ("listsum", "listmax"):
    s = open(f"{src_dir}/{name}.cu").read()
    m = re.search(r"^struct (jf_[0-9a-f]+_reduce)_args \{", s, re.M)
    kname = m.group(1)
    if prelude is None:
        # (compiled by nvcc, not NVRTC: the prelude's NVRTC branch, device functions)
        prelude = (s[:m.start()].replace("#pragma once", "").replace("#ifdef __CUDACC_RTC__", "#if 1")
                   .replace("#ifndef __CUDACC_RTC__", "#if 0").replace("defined(__CUDACC_RTC__)", "1"))
    kernel = s[m.start():]
    for variant in ("gen", "noheavy", "nolong"):
        k = kernel.replace(kname, f"{name}_{variant}")
        if variant in ("noheavy", "nolong"):
            k = re.sub(r"const long long jf_tb = [^;]*;\n", "", k)
            k = re.sub(r"const bool jf_heavy = [^;]*;", "const bool jf_heavy = false;", k)
        if variant == "nolong":
            k = re.sub(r"__ballot_sync\(jf_nest::full_mask, [^;]*\);", "0u;", k)
        parts.append(k)
open(out, "w").write(prelude + "\n".join(parts))
