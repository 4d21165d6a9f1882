/* src/core/isa.h: hot loops compiled once per x86-64 instruction-set level, chosen at run time
 * (private).
 *
 * A hot file writes its vector kernels as a template (names wrapped in ISA(...)) and includes
 * it through src/core/isa_instantiate.h, which compiles it for the baseline, x86-64-v3 (AVX2) and
 * x86-64-v4 (AVX-512) under `#pragma GCC target`, naming the copies name_base, name_v3 and
 * name_v4 (and name_v4i, x86-64-v4 with AVX-512 IFMA, for a template that asks for it). (A pragma region rather than target_clones or target attributes: GCC 12 lowers
 * generic vector code for the instruction set in force where it is *defined*.) srl__isa_level()
 * asks the CPU which copy to run. The kernels are integer code, or floating-point code without
 * contraction (-ffp-contract=off), so every copy computes the same bits; tests force each level
 * and compare. The default build never assumes more than baseline x86-64: no -march=native. */
#ifndef SRL_ISA_H
#define SRL_ISA_H

#define SRL_CAT2(a, b) a##b
#define SRL_CAT(a, b) SRL_CAT2(a, b)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SRL_MULTI_ISA 1
#else
#define SRL_MULTI_ISA 0
#endif

/* Plain C loops (no generic vectors) that the compiler vectorises by itself take the other
 * route: SRL__PLAIN_CLONES before such a function compiles it per level with target_clones,
 * picked at load time (the models' matrix rows and GELU, src/problems/model_ops.h; the test of
 * srl__tanh32). The address-sanitizer build keeps one copy, as it always has. */
#if SRL_MULTI_ISA && !defined(__SANITIZE_ADDRESS__)
#define SRL__PLAIN_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define SRL__PLAIN_CLONES
#endif

/* 2: x86-64-v4, 1: x86-64-v3, 0: baseline (a read of libgcc's cpu model). */
static inline int srl__isa_level(void)
{
#if SRL_MULTI_ISA
    if (__builtin_cpu_supports("x86-64-v4"))
        return 2;
    if (__builtin_cpu_supports("x86-64-v3"))
        return 1;
#endif
    return 0;
}

/* 3 where the CPU has x86-64-v4 and AVX-512 IFMA as well, else srl__isa_level(): the levels of a
 * template instantiated with SRL_ISA_IFMA (src/core/isa_instantiate.h). */
static inline int srl__isa_level_ifma(void)
{
    const int lvl = srl__isa_level();
#if SRL_MULTI_ISA
    if (lvl == 2 && __builtin_cpu_supports("avx512ifma"))
        return 3;
#endif
    return lvl;
}

/* 3 where the CPU has x86-64-v4 and AVX-512 BF16 as well (conversions to bfloat16 rounded to
 * nearest even), else srl__isa_level(): the levels of a template instantiated with SRL_ISA_BF16
 * (src/core/isa_instantiate.h). */
static inline int srl__isa_level_bf16(void)
{
    const int lvl = srl__isa_level();
#if SRL_MULTI_ISA
    if (lvl == 2 && __builtin_cpu_supports("avx512bf16"))
        return 3;
#endif
    return lvl;
}

/* The copy of `name` for level lvl, called with args (SRL_ISA_CALL4: a template with the IFMA
 * copy too). */
#if SRL_MULTI_ISA
#define SRL_ISA_CALL(lvl, name, args)                                                             \
    ((lvl) == 2 ? name##_v4 args : (lvl) == 1 ? name##_v3 args : name##_base args)
#define SRL_ISA_CALL4(lvl, name, args)                                                            \
    ((lvl) == 3 ? name##_v4i args : SRL_ISA_CALL(lvl, name, args))
#else
#define SRL_ISA_CALL(lvl, name, args) name##_base args
#define SRL_ISA_CALL4(lvl, name, args) name##_base args
#endif

#endif
