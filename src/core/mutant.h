/* src/core/mutant.h: realistic defects built into the library's own paths, for `srlab check
 * --mutate bug` (private; theory/README.md, "Built-in defects").
 *
 * A defect is a slip a careful programmer could make in the code that users run: the rounding
 * decision (src/round/decide.h, its scalar and lane copies and their carry forms), the bf16 bit
 * writes (src/linalg/tensor_impl.h), the bulk kernels' draws and subnormal block
 * (src/round/round_bulk*.{c,h}), the tensor writes (src/linalg/tensor.c), the optimizers' step
 * and fused bf16 write (src/train/optim_tpl.h, src/train/optim_fast_isa.h), the matrix
 * product's engines (src/linalg/kernels.c), the replicas' stream derivation
 * (src/problems/models_train.c) and one prediction (src/theory/t12_replicas.c). Each hook is one
 * marked line or block, `SRL__MUT(NAME)` its switch.
 *
 * Only a build configured with `meson setup -Dmutants=true` has them: meson then defines
 * SRL_MUTANTS, SRL__MUT(NAME) reads the active defect (srl__mutant, set by srl__mutant_set,
 * which srl_check_run calls around a check's run) and the hooks take their wrong branch when it
 * is theirs. In every other build SRL__MUT(NAME) is the integer constant 0: every hook is written
 * so that it then folds to the code without it (an `if (0)`, a `cond ? wrong : right` with a
 * constant condition, `+ 0` on an integer), and the default build's machine code is that of a
 * library without hooks (theory/README.md says how that was verified).
 *
 * The list below is the one list of defects: their ids (SRL__DEF_NAME, from 1), their names on
 * the command line and what each does (src/check/bugs.c exposes it as srl_check_bug_*). */
#ifndef SRL_CORE_MUTANT_H
#define SRL_CORE_MUTANT_H

/* X(NAME, "name", "what it does") */
#define SRL__DEFECTS(X)                                                                           \
    X(SR8, "sr8", "exact sr decides with the draw's top 8 bits only")                             \
    X(SR_LE, "sr-le",                                                                             \
      "sr and sr:r=R round away from zero when U <= f instead of U < f (the 16-bit write adds "   \
      "Z + 1)")                                                                                   \
    X(SR_SIGNED, "sr-signed",                                                                     \
      "sr's probability taken on the signed value: a negative value goes away from zero with "    \
      "probability 1 - f")                                                                        \
    X(SR_EQ_FLIP, "sr-eq-flip", "sr-eq goes away from zero when the draw's top bit is 0, not 1")  \
    X(SR12, "sr12", "the sr:r=16 write decides with 12 of its 16 random bits")                    \
    X(SR_R1, "sr-r-1", "sr:r=R decides with R - 1 random bits (the lowest one dropped)")          \
    X(TIES_AWAY, "ties-away", "rn breaks ties away from zero instead of to even")                 \
    X(RNA_TIE, "rna-tie", "rna sends a tie toward zero (away only when f > 1/2)")                 \
    X(DIRECTED_SIGN, "directed-sign", "ru and rd read the sign flipped")                          \
    X(RO_EVEN, "ro-even", "ro goes to the even neighbour instead of the odd one")                 \
    X(POW2_ULP, "pow2-ulp",                                                                       \
      "in the last spacing below a power of two the grid of the binade above is used (ulp "      \
      "instead of ulp/2)")                                                                        \
    X(SUBNORMAL, "subnormal",                                                                     \
      "the grid below xmin twice too coarse (fp16: spacing 2^-23 instead of 2^-24)")              \
    X(BF16_FTZ, "bf16-ftz", "bf16 results below 2^-126 (subnormal) flushed to zero")             \
    X(DOUBLE_ROUND, "double-round",                                                               \
      "binary64 values written into a tensor held in binary32 or bf16 rounded to binary32 (rn) "  \
      "first, then into the format")                                                              \
    X(DRAW_HALF, "draw-half", "element i of an array uses the draw of element i - i mod 2")       \
    X(DRAW_STUCK, "draw-stuck",                                                                   \
      "tensor and weight writes do not advance their draws between steps (every step draws as "   \
      "step 1)")                                                                                  \
    X(ADAM_EPS, "adam-eps", "Adam divides by sqrt(v + eps) instead of sqrt(v) + eps")             \
    X(ADAM_BIAS, "adam-bias", "Adam's bias corrections one step ahead: 1 - beta^(t+1)")           \
    X(KAHAN_DROP, "kahan-drop", "the Kahan compensation of step 1 is not written")                \
    X(REPLICA_STREAM, "replica-stream",                                                           \
      "replicas with shared SR streams get streams that differ by replica index")                 \
    X(REPLICA_SHARED, "replica-shared", "replicas with independent SR streams share replica 0's") \
    X(GEMM_DRAWS, "gemm-draws",                                                                   \
      "the matrix product's vector engines place output q's draws at q (D - 1) instead of q D "   \
      "(neighbouring outputs share a draw)")                                                      \
    X(PRED_HALF, "pred-half",                                                                     \
      "a prediction off by a factor 2: T12's drift term p (1 - p) q^2 (one replica's variance) "  \
      "instead of 2 p (1 - p) q^2")

#define SRL__DEF_ENUM(NAME, name, text) SRL__DEF_##NAME,
enum { SRL__DEF_NONE = 0, SRL__DEFECTS(SRL__DEF_ENUM) SRL__DEF_COUNT };
#undef SRL__DEF_ENUM

#if defined(SRL_MUTANTS)
/* The active defect (SRL__DEF_NONE: none). Written only between runs (srl__mutant_set), never
 * while a computation reads it. */
extern int srl__mutant;
#define SRL__MUT(NAME) __builtin_expect(srl__mutant == SRL__DEF_##NAME, 0)
#else
#define SRL__MUT(NAME) 0
#endif

/* 1 in a build with the defects (-Dmutants=true), else 0. */
#if defined(SRL_MUTANTS)
#define SRL__HAVE_MUTANTS 1
#else
#define SRL__HAVE_MUTANTS 0
#endif

/* Make defect k (1 .. SRL__DEF_COUNT - 1) active, or none (0). A build without the defects
 * ignores it. Not thread-safe: call it outside any computation. (src/core/mutant.c) */
void srl__mutant_set(int k);

#endif
