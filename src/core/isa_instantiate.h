/* src/core/isa_instantiate.h: compile the template named by SRL_ISA_TEMPLATE once per instruction
 * set (see src/core/isa.h). Usage:
 *     #define SRL_ISA_TEMPLATE "round/round_bulk_isa.h"
 *     #include "core/isa_instantiate.h"
 * Inside the template, ISA(name) names a function's copy for the instruction set (name_base,
 * name_v3, name_v4) and SRL_ISA_LEVEL is its level (0, 1, 2, as srl__isa_level() returns), for a
 * template that compiles some functions only where they will run (src/linalg/kernels_isa.h).
 * A template file's functions are static, named through ISA(); a file that is included into
 * several templates' instantiations must be one of src/round/lanes_isa.h's kind (no guard, one
 * per translation unit). No include guard: a file may instantiate several templates.
 * A file that defines SRL_ISA_IFMA before including this one also gets a fourth copy, name_v4i,
 * level 3: x86-64-v4 plus AVX-512 IFMA (52-bit integer multiply-add, not part of x86-64-v4;
 * src/round/round_bulk.c's pcg64 lanes use it). One that defines SRL_ISA_BF16 gets name_v4b, level 3:
 * x86-64-v4 plus AVX-512 BF16 (src/linalg/gemm32.c's products rounded to bfloat16).
 * A template tests SRL_ISA_LEVEL (and SRL_ISA_IFMA_ON, 1 in the v4i copy only), never the
 * compiler's __AVX512F__, __AVX2__, ... macros: `#pragma GCC target` defines those for the
 * compiler but not for `gcc -E`, whose output is what ccache hashes when its direct mode misses,
 * so an edit of code under them that kept the line count was served a stale object. */
#include "core/isa.h"

#define ISA(name) SRL_CAT(name, _base)
#define SRL_ISA_IFMA_ON 0
#define SRL_ISA_LEVEL 0
#include SRL_ISA_TEMPLATE
#undef SRL_ISA_LEVEL
#undef SRL_ISA_IFMA_ON
#undef ISA

#if SRL_MULTI_ISA
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define ISA(name) SRL_CAT(name, _v3)
#define SRL_ISA_IFMA_ON 0
#define SRL_ISA_LEVEL 1
#include SRL_ISA_TEMPLATE
#undef SRL_ISA_LEVEL
#undef SRL_ISA_IFMA_ON
#undef ISA
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define ISA(name) SRL_CAT(name, _v4)
#define SRL_ISA_IFMA_ON 0
#define SRL_ISA_LEVEL 2
#include SRL_ISA_TEMPLATE
#undef SRL_ISA_LEVEL
#undef SRL_ISA_IFMA_ON
#undef ISA
#pragma GCC pop_options
#if defined(SRL_ISA_IFMA)
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4,avx512ifma")
#define ISA(name) SRL_CAT(name, _v4i)
#define SRL_ISA_IFMA_ON 1
#define SRL_ISA_LEVEL 3
#include SRL_ISA_TEMPLATE
#undef SRL_ISA_LEVEL
#undef SRL_ISA_IFMA_ON
#undef ISA
#pragma GCC pop_options
#endif
#if defined(SRL_ISA_BF16)
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4,avx512bf16")
#define ISA(name) SRL_CAT(name, _v4b)
#define SRL_ISA_IFMA_ON 0
#define SRL_ISA_LEVEL 3
#include SRL_ISA_TEMPLATE
#undef SRL_ISA_LEVEL
#undef SRL_ISA_IFMA_ON
#undef ISA
#pragma GCC pop_options
#endif
#endif
