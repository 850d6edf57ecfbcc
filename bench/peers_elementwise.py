#!/usr/bin/env python3
"""The Python peers of bench_elementwise on the same machine: the quadratic formula
(-b + sqrt(b*b - 4*a*c)) / (2*a) on float64 (a, c uniform in [1, 2), b in [3, 6), as bench_elementwise
draws them) and sin(2*x + 1) on float32, at 2^20, 2^24 and 2^27 elements (--quick: 2^24, 2^27); the
host cost of a small call (the quadratic formula on 1000 elements, a new output per call); and the
first call of each implementation in this process (its compilation or its cache's load included);
and the seeds' other element-wise workloads at their sizes: x**2 on 5e8 int32, x += 1 on 1e8 float64
in place, the 2000 x 2000 float32 diffusion step with slices into a second field.

    python3 bench/peers_elementwise.py [--seed-workloads-only]

Implementations (each skipped with the reason when its library is missing):
  cupy           the expression on CuPy arrays (a kernel and a temporary per operation)
  cupy_kernel    one cupy.ElementwiseKernel (a new output per call)
  cupy_fuse      cupy.fuse of the expression
  torch          the expression on PyTorch tensors (eager)
  torch_compile  torch.compile of the expression (dynamic=False: one compilation per size)
  jax_jit        jax.jit of the expression (x64 enabled)
  numba          a Numba-CUDA kernel, one thread per element, 256-thread blocks, into a preallocated
                 output (as the issue's measurement wrote it)
Timing: a warm-up call, then batches of back-to-back calls with one synchronisation, the best batch
(peers_common.timed). Bytes: 32 per element for the quadratic formula (3 read + 1 written, float64),
8 for sin (float32), as bench_elementwise counts them; the copy is CuPy's device copy of n float64
(bench_elementwise's BM_Copy/n) measured in this run. Each row is also printed as a JFROW line
(peers_common.py) for bench/run_all.py.
"""
import math
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU with CuPy and torch

import peers_common as common

SIZES = (1 << 24, 1 << 27) if common.quick() else (1 << 20, 1 << 24, 1 << 27)
FIRST_CALL_N = 1 << 20
SMALL_N = 1000
BYTES_PER_ELEMENT = {"Quadratic": 32, "Sin": 8}


def reps_for(n):
    return 10 if n >= (1 << 26) else 50 if n >= (1 << 22) else 200


def quadratic(a, b, c, sqrt):
    return (-b + sqrt(b * b - 4 * a * c)) / (2 * a)


def sin2x1(x, sin):
    return sin(2 * x + 1)


class Measure:
    """Runs one implementation over the workloads and prints its rows."""

    def __init__(self, copies):
        self.copies = copies  # GB/s of the device copy per n

    def run(self, impl, make, sync):
        """make(workload, n) -> a zero-argument call; sync(result) waits for it."""
        call = make("Quadratic", FIRST_CALL_N)
        t = common.first_call(call, sync)
        print(f"{impl:<14} first call (quadratic, 2^20): {t * 1e3:9.2f} ms", flush=True)
        common.emit("FirstCall", impl, t, label=f"{impl}: the first call in the process, 2^20 float64")
        small = make("Quadratic", SMALL_N)
        t = common.timed(small, 1000, sync)
        print(f"{impl:<14} small call (quadratic, 1000): {t * 1e6:9.2f} us", flush=True)
        common.emit("SmallCall", impl, t, label=f"{impl}: quadratic formula on 1000 float64")
        del call, small
        for workload in ("Quadratic", "Sin"):
            for n in SIZES:
                f = make(workload, n)
                t = common.timed(f, reps_for(n), sync)
                nbytes = BYTES_PER_ELEMENT[workload] * n
                gbps = nbytes / t * 1e-9
                print(f"{impl:<14} {workload:<10} 2^{int(math.log2(n)):<3} {t * 1e6:10.1f} us {gbps:8.0f} GB/s "
                      f"{100 * gbps / self.copies[n]:6.1f} % of copy", flush=True)
                common.emit(workload, impl, t, nbytes, self.copies[n], size=n, label=impl)
                del f


def cupy_impls(m):
    import cupy as cp

    kernels = {
        "Quadratic": cp.ElementwiseKernel("float64 a, float64 b, float64 c", "float64 x",
                                          "x = (-b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a)", "jf_peer_quadratic"),
        "Sin": cp.ElementwiseKernel("float32 x", "float32 y", "y = sinf(2.0f * x + 1.0f)", "jf_peer_sin"),
    }
    # Named functions: cupy.fuse names its kernel after the function ("<lambda>" does not compile).
    def fused_quadratic(a, b, c):
        return quadratic(a, b, c, cp.sqrt)

    def fused_sin(x):
        return sin2x1(x, cp.sin)

    fused = {"Quadratic": cp.fuse(fused_quadratic), "Sin": cp.fuse(fused_sin)}

    def inputs(workload, n):
        g = cp.random.default_rng(2)
        if workload == "Quadratic":
            return (g.uniform(1, 2, n), g.uniform(3, 6, n), g.uniform(1, 2, n))
        return (g.uniform(-3, 3, n).astype(cp.float32),)

    def plain(workload, n):
        args = inputs(workload, n)
        if workload == "Quadratic":
            return lambda: quadratic(*args, cp.sqrt)
        return lambda: sin2x1(args[0], cp.sin)

    m.run("cupy", plain, common.cupy_sync)
    m.run("cupy_kernel", lambda w, n: (lambda k, args: lambda: k(*args))(kernels[w], inputs(w, n)), common.cupy_sync)
    m.run("cupy_fuse", lambda w, n: (lambda k, args: lambda: k(*args))(fused[w], inputs(w, n)), common.cupy_sync)
    cp.get_default_memory_pool().free_all_blocks()


def torch_impls(m):
    import torch

    def sync(_):
        torch.cuda.synchronize()

    def inputs(workload, n):
        g = torch.Generator(device="cuda").manual_seed(3)
        if workload == "Quadratic":
            u = [torch.rand(n, dtype=torch.float64, device="cuda", generator=g) for _ in range(3)]
            return (1 + u[0], 3 + 3 * u[1], 1 + u[2])
        return (torch.rand(n, dtype=torch.float32, device="cuda", generator=g) * 6 - 3,)

    def expression(workload):
        if workload == "Quadratic":
            return lambda a, b, c: quadratic(a, b, c, torch.sqrt)
        return lambda x: sin2x1(x, torch.sin)

    def eager(workload, n):
        f, args = expression(workload), inputs(workload, n)
        return lambda: f(*args)

    m.run("torch", eager, sync)
    torch.cuda.empty_cache()
    try:
        def compiled(workload, n):
            f, args = torch.compile(expression(workload), dynamic=False), inputs(workload, n)
            return lambda: f(*args)

        m.run("torch_compile", compiled, sync)
    except Exception as e:  # noqa: BLE001 - a missing compiler (triton) is reported, not fatal
        common.skip("torch_compile", e)
    torch.cuda.empty_cache()


def jax_impls(m):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    jitted = {"Quadratic": jax.jit(lambda a, b, c: quadratic(a, b, c, jnp.sqrt)),
              "Sin": jax.jit(lambda x: sin2x1(x, jnp.sin))}

    def make(workload, n):
        k = jax.random.split(jax.random.PRNGKey(4), 3)
        if workload == "Quadratic":
            args = (jax.random.uniform(k[0], (n,), jnp.float64, 1, 2), jax.random.uniform(k[1], (n,), jnp.float64, 3, 6),
                    jax.random.uniform(k[2], (n,), jnp.float64, 1, 2))
        else:
            args = (jax.random.uniform(k[0], (n,), jnp.float32, -3, 3),)
        for a in args:
            a.block_until_ready()
        f = jitted[workload]
        return lambda: f(*args)

    m.run("jax_jit", make, lambda r: r.block_until_ready())


def numba_impls(m):
    import numpy as np

    np.row_stack = getattr(np, "row_stack", np.vstack)  # numba-cuda still names it; numpy >= 2.5 removed it
    import cupy as cp
    from numba import cuda

    @cuda.jit
    def quad_kernel(a, b, c, x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] = (-b[i] + math.sqrt(b[i] * b[i] - 4.0 * a[i] * c[i])) / (2.0 * a[i])

    @cuda.jit
    def sin_kernel(x, y):
        i = cuda.grid(1)
        if i < y.size:
            y[i] = math.sin(np.float32(2) * x[i] + np.float32(1))

    def make(workload, n):
        g = cp.random.default_rng(5)
        if workload == "Quadratic":
            args = [g.uniform(1, 2, n), g.uniform(3, 6, n), g.uniform(1, 2, n), cp.empty(n)]
            kernel = quad_kernel
        else:
            args = [g.uniform(-3, 3, n).astype(cp.float32), cp.empty(n, dtype=cp.float32)]
            kernel = sin_kernel
        dev = [cuda.as_cuda_array(a) for a in args]
        launch = kernel[(n + 255) // 256, 256]
        return lambda: launch(*dev)

    m.run("numba", make, common.cupy_sync)


# ---- the seeds' other element-wise workloads, each at its seed's size (bench_elementwise's
# BM_SquareInt32, BM_AddOneInPlace, BM_Diffusion): bytes a call must move, and the data.
SQUARE_N, ADD_ONE_N, FIELD, KAPPA = 500_000_000, 100_000_000, 2000, 0.1
SEED_BYTES = {"SquareInt32": 8 * SQUARE_N, "AddOneInPlace": 16 * ADD_ONE_N, "Diffusion": 8 * (FIELD - 2) ** 2}
SEED_LABELS = {"SquareInt32": "x**2, 5e8 int32", "AddOneInPlace": "x += 1, 1e8 float64",
               "Diffusion": "2000^2 float32 diffusion step with slices into a second field"}


def diffusion_step(u, un):
    """u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + k (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 u[1:-1, 1:-1])."""
    c = u[1:-1, 1:-1]
    un[1:-1, 1:-1] = c + KAPPA * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)
    return un


def seed_rows(impl, make, sync, copies):
    """make(workload) -> a zero-argument call (None: not measured); one row per workload."""
    for workload in ("SquareInt32", "AddOneInPlace", "Diffusion"):
        f = make(workload)
        if f is None:
            continue
        reps = 50 if workload == "Diffusion" else 5
        t = common.timed(f, reps, sync)
        gbps = SEED_BYTES[workload] / t * 1e-9
        print(f"{impl:<14} {workload:<14} {t * 1e6:10.1f} us {gbps:8.0f} GB/s {100 * gbps / copies[workload]:6.1f} % of copy",
              flush=True)
        common.emit(workload, impl, t, SEED_BYTES[workload], copies[workload], label=f"{impl} {SEED_LABELS[workload]}")
        del f


def cupy_seed(copies):
    import cupy as cp

    square = cp.ElementwiseKernel("int32 x", "int32 y", "y = x * x", "jf_peer_square")
    add_one = cp.ElementwiseKernel("", "float64 x", "x += 1.0", "jf_peer_add_one")
    stencil = cp.ElementwiseKernel("float32 c, float32 n, float32 s, float32 e, float32 w", "float32 y",
                                   "y = c + 0.1f * (n + s + e + w - 4.0f * c)", "jf_peer_diffusion")

    def data(workload):
        if workload == "SquareInt32":
            return cp.arange(SQUARE_N, dtype=cp.int32) % 46341
        if workload == "AddOneInPlace":
            return cp.zeros(ADD_ONE_N)
        return cp.random.default_rng(6).random((FIELD, FIELD), dtype=cp.float32), cp.zeros((FIELD, FIELD), cp.float32)

    def plain(workload):
        d = data(workload)
        if workload == "SquareInt32":
            return lambda: d ** 2
        if workload == "AddOneInPlace":
            def add(x=d):
                x += 1
                return x
            return add
        return lambda: diffusion_step(*d)

    def kernel(workload):
        d = data(workload)
        if workload == "SquareInt32":
            return lambda: square(d)
        if workload == "AddOneInPlace":
            return lambda: add_one(d)
        u, un = d  # the output is the strided interior view: written in place, no temporary
        return lambda: stencil(u[1:-1, 1:-1], u[:-2, 1:-1], u[2:, 1:-1], u[1:-1, 2:], u[1:-1, :-2], un[1:-1, 1:-1])

    seed_rows("cupy", plain, common.cupy_sync, copies)
    cp.get_default_memory_pool().free_all_blocks()
    seed_rows("cupy_kernel", kernel, common.cupy_sync, copies)
    cp.get_default_memory_pool().free_all_blocks()


def torch_seed(copies):
    import torch

    def sync(_):
        torch.cuda.synchronize()

    def data(workload):
        if workload == "SquareInt32":
            return torch.arange(SQUARE_N, dtype=torch.int32, device="cuda") % 46341
        if workload == "AddOneInPlace":
            return torch.zeros(ADD_ONE_N, dtype=torch.float64, device="cuda")
        g = torch.Generator(device="cuda").manual_seed(6)
        return (torch.rand((FIELD, FIELD), dtype=torch.float32, device="cuda", generator=g),
                torch.zeros((FIELD, FIELD), dtype=torch.float32, device="cuda"))

    def functions():
        return {"SquareInt32": lambda x: x ** 2, "AddOneInPlace": lambda x: x.add_(1), "Diffusion": diffusion_step}

    def eager(workload):
        d, f = data(workload), functions()[workload]
        return (lambda: f(*d)) if isinstance(d, tuple) else (lambda: f(d))

    seed_rows("torch", eager, sync, copies)
    torch.cuda.empty_cache()
    try:
        def compiled(workload):
            d, f = data(workload), torch.compile(functions()[workload], dynamic=False)
            return (lambda: f(*d)) if isinstance(d, tuple) else (lambda: f(d))

        seed_rows("torch_compile", compiled, sync, copies)
    except Exception as e:  # noqa: BLE001 - a missing compiler (triton) is reported, not fatal
        common.skip("torch_compile", e, list(SEED_BYTES))
    torch.cuda.empty_cache()


def jax_seed(copies):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def stencil(u, un):
        c = u[1:-1, 1:-1]
        return un.at[1:-1, 1:-1].set(c + KAPPA * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c))

    square = jax.jit(lambda x: x ** 2)
    add_one = jax.jit(lambda x: x + 1, donate_argnums=0)  # functional: the donated buffer is reused
    step = jax.jit(stencil, donate_argnums=1)

    def make(workload):
        if workload == "SquareInt32":
            x = jnp.arange(SQUARE_N, dtype=jnp.int32) % 46341
            x.block_until_ready()
            return lambda: square(x)
        if workload == "AddOneInPlace":
            state = [jnp.zeros(ADD_ONE_N)]

            def call():
                state[0] = add_one(state[0])
                return state[0]
            return call
        u = jax.random.uniform(jax.random.PRNGKey(6), (FIELD, FIELD), jnp.float32)
        state = [jnp.zeros((FIELD, FIELD), jnp.float32)]

        def diffuse():
            state[0] = step(u, state[0])
            return state[0]
        return diffuse

    seed_rows("jax_jit", make, lambda r: r.block_until_ready(), copies)


def numba_seed(copies):
    import numpy as np

    np.row_stack = getattr(np, "row_stack", np.vstack)
    import cupy as cp
    from numba import cuda

    @cuda.jit
    def square_kernel(x, y):
        i = cuda.grid(1)
        if i < y.size:
            y[i] = x[i] * x[i]

    @cuda.jit
    def add_one_kernel(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] += 1.0

    @cuda.jit
    def diffusion_kernel(u, un):
        c, r = cuda.grid(2)  # threads along a row: coalesced (the seed's kernel indexes [x, y], x fastest)
        if 0 < r < u.shape[0] - 1 and 0 < c < u.shape[1] - 1:
            un[r, c] = u[r, c] + np.float32(KAPPA) * (u[r + 1, c] + u[r - 1, c] + u[r, c + 1] + u[r, c - 1]
                                                      - np.float32(4) * u[r, c])

    def make(workload):
        if workload == "SquareInt32":
            x = cp.arange(SQUARE_N, dtype=cp.int32) % 46341
            dev = [cuda.as_cuda_array(x), cuda.as_cuda_array(cp.empty_like(x))]
            launch = square_kernel[(SQUARE_N + 255) // 256, 256]
            return lambda: launch(*dev)
        if workload == "AddOneInPlace":
            x = cuda.as_cuda_array(cp.zeros(ADD_ONE_N))
            launch = add_one_kernel[(ADD_ONE_N + 255) // 256, 256]
            return lambda: launch(x)
        u = cp.random.default_rng(6).random((FIELD, FIELD), dtype=cp.float32)
        dev = [cuda.as_cuda_array(u), cuda.as_cuda_array(cp.zeros_like(u))]
        launch = diffusion_kernel[((FIELD + 15) // 16, (FIELD + 15) // 16), (16, 16)]  # the seed's 2-d grid, 16x16
        return lambda: launch(*dev)

    seed_rows("numba", make, common.cupy_sync, copies)


def main():
    import cupy as cp

    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
    if "--seed-workloads-only" not in sys.argv[1:]:
        sized(cp)
    seed_copies = {w: common.copy_gbps(b // 2) for w, b in SEED_BYTES.items()}  # a copy moving the same bytes
    for w, g in seed_copies.items():
        print(f"device copy moving the bytes of {w}: {g:.0f} GB/s", flush=True)
    for impl, section in (("cupy", cupy_seed), ("torch", torch_seed), ("jax_jit", jax_seed), ("numba", numba_seed)):
        try:
            section(seed_copies)
        except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
            common.skip(impl, e, list(SEED_BYTES))
        cp.get_default_memory_pool().free_all_blocks()


def sized(cp):
    """The quadratic formula and sin at SIZES, the small call and the first call."""
    copies = {n: common.copy_gbps(8 * n) for n in SIZES}
    for n, g in copies.items():
        print(f"device copy of 2^{int(math.log2(n))} float64: {g:.0f} GB/s", flush=True)
    m = Measure(copies)
    for impl, section in (("cupy", cupy_impls), ("torch", torch_impls), ("jax_jit", jax_impls), ("numba", numba_impls)):
        try:
            section(m)
        except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
            common.skip(impl, e)
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
