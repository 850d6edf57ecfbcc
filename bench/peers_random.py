#!/usr/bin/env python3
"""The Python peers of bench_random on the same machine: Monte Carlo pi from 2^30 pairs with CuPy
(cupy.random.default_rng().random arrays, then the arithmetic and the mean) and JAX (jax.random.uniform inside
jit, which XLA fuses), and uniform float32 generation into an array.

    python3 bench/peers_random.py

Each row is also printed as a JFROW line (peers_common.py) for bench/run_all.py (pi rows: no bytes,
samples per second).
"""
import cupy as cp

import peers_common as common

N = 1 << 30
PI_WORKLOAD = {"float64": "MonteCarloPi", "float32": "MonteCarloPiF32"}


def timed(f, reps=3, sync=common.cupy_sync):
    return common.timed(f, reps, sync)


def main():
    print("device:", cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
    rs = cp.random.default_rng(2026)

    for dt in (cp.float64, cp.float32):
        def cupy_pi():
            u = rs.random(N, dtype=dt)
            v = rs.random(N, dtype=dt)
            return float(4 * ((u * u + v * v) < 1).mean())

        t = timed(cupy_pi)
        print("cupy pi 2^30 %s (Generator.random arrays + mean): %.1f ms, %.2f Gsamples/s" %
              (cp.dtype(dt).name, t * 1e3, N / t * 1e-9), flush=True)
        common.emit(PI_WORKLOAD[cp.dtype(dt).name], "cupy", t, label="cupy Generator.random arrays + mean",
                    samples_per_s=N / t)
    a = cp.empty(1 << 28, dtype=cp.float32)
    t = timed(lambda: rs.random(1 << 28, dtype=cp.float32, out=a), 20)
    print("cupy random float32 2^28 into an array: %.1f us, %.0f GB/s" % (t * 1e6, (1 << 30) / t * 1e-9), flush=True)
    common.emit("UniformF32", "cupy", t, 1 << 30, label="cupy Generator.random(out=)")
    try:
        import jax
        jax.config.update("jax_enable_x64", True)  # float64 draws too; float32 stays 32-bit threefry
        import jax.numpy as jnp

        for dt in (jnp.float64, jnp.float32):
            @jax.jit
            def jax_pi(key):
                k1, k2 = jax.random.split(key)
                u = jax.random.uniform(k1, (N,), dtype=dt)
                v = jax.random.uniform(k2, (N,), dtype=dt)
                return 4 * jnp.mean((u * u + v * v) < 1)

            key = jax.random.PRNGKey(2026)
            best = timed(lambda: jax_pi(key), 3, lambda r: r.block_until_ready())
            print("jax jit pi 2^30 %s (uniform in jit): %.1f ms, %.2f Gsamples/s" %
                  (jnp.dtype(dt).name, best * 1e3, N / best * 1e-9), flush=True)
            common.emit(PI_WORKLOAD[jnp.dtype(dt).name], "jax_jit", best, label="jax jit, jax.random.uniform",
                        samples_per_s=N / best)
    except Exception as e:  # noqa: BLE001 - a missing peer is reported, not fatal
        common.skip("jax_jit", e)


if __name__ == "__main__":
    main()
