#!/usr/bin/env python3
"""Variants of jetfuse's generated list kernels (dump_list_kernels.cpp), edited by text, in one
CUDA file for harness.cu: each kernel renamed <name>_s<steps>_<variant> behind one shared prelude,
and JF_VARIANTS(X), the list of them for the harness.
  gen      the generated kernel as it is
  noheavy  the tile's first/last offsets not read and the heavy (block) path dead: jf_heavy = false
  nolong   noheavy and the medium (warp) path dead too: the ballots are 0
  i32      offsets read without their stride (contiguous) and kept as int (the lane lists' starts,
           ends, lengths and element indices): 32-bit arithmetic
  smallq   the heavy lists' queue in shared memory cut from 1024 to 32 entries (enough for this data,
           which has no heavy list: does the block's shared memory cost, through the L1 carve-out?)
  pipe     the lock step software-pipelined: step m + 1's loads issued before step m's values are
           combined (the values carried in registers across the trip; one extra load, of a valid
           element, after the last step) — for the max, whose loads ptxas issues four at a time
  u<N>     the generated kernel with `#pragma unroll N` on the lock-step loop (ptxas's choice: 4)
  lb<B>    the generated kernel with __launch_bounds__(256, B): at most 65536 / (256 B) registers
The kernels of dump_list_kernels.cpp: listsum/listmax (the longest list not known: every path),
listsumW/listmaxW (at most 4096: no block path), listsumL/listmaxL (at most 16: lanes only), listmaxL2 (the same, 2 lists per lane).
Usage: make_variants.py <dir with listsum_s1.cu, ...> <out.cuh>"""
import re, sys

src_dir, out = sys.argv[1], sys.argv[2]
prelude, parts, names = None, [], []
for name in ("listsum", "listmax", "listsumW", "listmaxW", "listsumL", "listmaxL", "listmaxL2"):
    for steps in (1, 2):
        s = open(f"{src_dir}/{name}_s{steps}.cu").read()
        m = re.search(r"^struct (jf_[0-9a-f]+_\w+?)_args \{", s, re.M)
        kname = m.group(1)
        if prelude is None:
            # (compiled by nvcc, not NVRTC: the prelude's NVRTC branch, device functions)
            prelude = (s[:m.start()].replace("#pragma once", "").replace("#ifdef __CUDACC_RTC__", "#if 1")
                       .replace("#ifndef __CUDACC_RTC__", "#if 0").replace("defined(__CUDACC_RTC__)", "1"))
        kernel = s[m.start():]
        variants = (("gen", "noheavy", "nolong") if name in ("listsum", "listmax") else ("gen", "u2", "pipe")) if steps == 1 else ("gen",)
        for variant in variants:
            vname = f"{name}_s{steps}_{variant}"
            k = kernel.replace(kname, vname)
            if variant == "pipe":
                loads = re.findall(r"      const I (jj_\d+) = m < (jn_\d+) \? (jb_\d+) \+ m : jf_wb;\n"
                                   r"      const (\w+) (v\d+_\d+) = jf_nest::ld\((in\d+) \+ jj_\d+\);[^\n]*\n", k)
                assert loads, vname
                pre = "".join(f"    {t} p{v} = jf_steps > 0 ? jf_nest::ld({src} + (0 < {jn} ? {jb} : jf_wb)) : {t}();\n" for jj, jn, jb, t, v, src in loads)
                k = k.replace("    for (int m = 0; m < jf_steps; m += 1) {", pre + "    for (int m = 0; m < jf_steps; m += 1) {", 1)
                for jj, jn, jb, t, v, src in loads:
                    k = re.sub(rf"      const I {jj} = m < {jn} \? {jb} \+ m : jf_wb;\n      const {t} {v} = jf_nest::ld\({src} \+ {jj}\);[^\n]*\n",
                               f"      const {t} {v} = p{v};\n      p{v} = jf_nest::ld({src} + (m + 1 < {jn} ? {jb} + m + 1 : jf_wb));\n", k, count=1)
            if variant == "smallq":
                k = k.replace("__shared__ int s_big[1024];", "__shared__ int s_big[32];")
            if variant.startswith("u"):
                k = k.replace("    for (int m = 0; m < jf_steps; m += 1) {", f"#pragma unroll {variant[1]}\n    for (int m = 0; m < jf_steps; m += 1) {{", 1)
            if variant.startswith("i32"):
                k = k.replace(" * jf_st_off]", "]")
                k = re.sub(r"(const long long jf_i\d = iw \+ lane \+ \d+), (jb_\d) = ", r"\1; const int \2 = (int)", k)
                k = re.sub(r"const long long (jf_wend|jf_down\d|jf_next\d|je_\d|jf_wb|jj_\d|jj_\d_\d) = ", r"const int \1 = (int)", k)
            if variant.endswith("noheavy") or variant in ("noheavy", "nolong"):
                k = re.sub(r"const long long jf_tb = [^;]*;\n", "", k)
                k = re.sub(r"const bool jf_heavy = [^;]*;", "const bool jf_heavy = false;", k)
            if variant == "nolong":
                k = re.sub(r"__ballot_sync\(jf_nest::full_mask, [^;]*\);", "0u;", k)
            if "lb" in variant:
                k = k.replace("__launch_bounds__(256)", f"__launch_bounds__(256, {variant.split('lb')[1]})")
            parts.append(k)
            names.append((vname, "sum" if name.startswith("listsum") else "mx"))
table = "#define JF_VARIANTS(X) " + " ".join(f"X({n}, {r})" for n, r in names) + "\n"
open(out, "w").write(prelude + "\n".join(parts) + "\n" + table)
