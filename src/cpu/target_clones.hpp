// JF_CPU_CLONES: a loop compiled twice, for AVX2 and for the x86-64 baseline, the loader picking
// one (GCC's target_clones, an ifunc); elsewhere nothing. Both versions give the same bits for the
// loops it marks: IEEE operations element by element, no contraction (AVX2 brings no FMA), and
// library calls (sin, exp, ...) stay scalar calls.
#pragma once

// (Defined before, it is kept: test_cpu_clones compiles the loops again without clones.)
#ifndef JF_CPU_CLONES
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define JF_CPU_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define JF_CPU_CLONES
#endif
#endif
