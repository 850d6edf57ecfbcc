#!/usr/bin/env python3
"""The Python peers of bench_random on the same machine: Monte Carlo pi from 2^30 pairs with CuPy
(cupy.random.default_rng().random arrays, then the arithmetic and the mean) and JAX (jax.random.uniform inside
jit, which XLA fuses), and uniform float32 generation into an array.

    python3 bench/peers_random.py
"""
import time

import cupy as cp

import peers_reductions  # its timing loop (best of 5 batches, one synchronisation each)

N = 1 << 30


def timed(f, reps=3):
    return peers_reductions.timed(f, reps)


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
              (cp.dtype(dt).name, t * 1e3, N / t * 1e-9))
    a = cp.empty(1 << 28, dtype=cp.float32)
    t = timed(lambda: rs.random(1 << 28, dtype=cp.float32, out=a), 20)
    print("cupy random float32 2^28 into an array: %.1f us, %.0f GB/s" % (t * 1e6, (1 << 30) / t * 1e-9))
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
            jax_pi(key).block_until_ready()
            best = None
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(3):
                    r = jax_pi(key)
                r.block_until_ready()
                t = (time.perf_counter() - t0) / 3
                best = t if best is None else min(best, t)
            print("jax jit pi 2^30 %s (uniform in jit): %.1f ms, %.2f Gsamples/s" %
                  (jnp.dtype(dt).name, best * 1e3, N / best * 1e-9))
    except ImportError:
        print("jax: not installed")


if __name__ == "__main__":
    main()
