/* srlab/strategy.h: precision strategies (docs/design.md §7): in which format each tensor of a training
 * run is stored, how each write into it rounds, and in which arithmetic the update is computed.
 *
 * A strategy is a value made of slots. A slot is a storage format and the rounding of writes into
 * it. The tensors of one weight (include/srlab/optim.h) are:
 *   param   the weights as forward/backward see them; with a master copy, the cast of the master
 *           (written from the master with param's rounding after every step)
 *   grad    the gradient (written by the problem's backward pass)
 *   m       the first moment (Adam, AdamW) or the momentum buffer (heavy ball)
 *   v       the second moment (Adam, AdamW)
 *   master  an optional master copy the update is applied to (mp)
 *   comp    an optional Kahan compensation buffer of the weight update (bf16-kahan)
 * plus the arithmetic of the update (fp32: native binary32 operations, each rounded to nearest
 * binary32, -ffp-contract=off so a*b+c is two roundings; fp64: native binary64), the format of
 * activations (act: used by problems with a forward pass, the MLP and the GPT) and the kernels'
 * accumulation (accum: product and accumulator formats for the matrix products of those
 * problems, in the notation of include/srlab/kernels.h; "fp32" means products and accumulation
 * in binary32 with rn).
 *
 * Presets (every piece can then be overridden by a key, see srl_strategy_from_config):
 *   fp32           every slot fp32 rn, update fp32, act fp32, accum fp32.
 *   mp             (bf16, fp32) mixed precision: master fp32 rn, param bf16 rn (the cast of the
 *                  master), grad bf16 rn, m v fp32 rn, update fp32, act bf16 rn, accum fp32
 *                  (matmul inputs bf16, fp32 accumulation).
 *   bf16-rn        param grad m v bf16 rn, update fp32 (vanilla bf16), act bf16, accum fp32.
 *   bf16-sr        as bf16-rn with the weight write sr:r=16 of the fp32 value: the seed paper's
 *                  optimizer (moments rn).
 *   bf16-sr-exact  as bf16-sr with the update in fp64 and the weight write exact sr (one
 *                  rounding of the binary64 value, no truncated random bits).
 *   bf16-kahan     as bf16-rn plus a bf16 rn compensation buffer (comp) for the weight update
 *                  (the operations are in include/srlab/optim.h).
 *   mp-tc          as mp with the accumulation of FP8 tensor cores in every matrix product
 *                  (forward and backward): products exact, a 14-bit partial sum truncated at
 *                  every addition and added into binary32 every 128 products, accum
 *                  "prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128,join=fp32:rn"
 *                  (bf16 operands: the products are exact in binary32).
 *   custom         fp32 to start with; meant to be set piece by piece.
 * Block-scaled GEMMs (include/srlab/mxgemm.h, docs/mx-training.md): the three matrix products
 * of a linear layer of the MLP or the GPT (qkv, proj, fc, fcproj), Fprop (y = x W), Dgrad (dx = dy W^T) and Wgrad (dW = x^T dy),
 * each computed by srl_mxgemm_f with its own config when on (mx_on[k]), otherwise by the kernels
 * with accum. Off in every preset. Its operands are the stored activations, weights and
 * gradients (already in their slots' formats); its own accumulation config replaces accum.
 * Bytes per parameter (srl_strategy_bytes) count what is allocated: storage sizes from
 * include/srlab/tensor.h (bf16 2, other binary32-subset formats 4, wider 8). */
#ifndef SRLAB_STRATEGY_H
#define SRLAB_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/mxgemm.h"
#include "srlab/rounding.h"
#include "srlab/config.h"
#include "srlab/rows.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_arith { SRL_ARITH_FP32 = 0, SRL_ARITH_FP64 = 1 } srl_arith;

typedef struct srl_slot {
    srl_format fmt;     /* storage format */
    srl_rounding mode;  /* rounding of every write */
} srl_slot;

#define SRL_STRATEGY_NAME_LEN 32
#define SRL_ACCUM_SPEC_LEN 160

/* The three matrix products of a linear layer. */
typedef enum srl_strategy_gemm {
    SRL_STRATEGY_FPROP = 0, /* y = x W */
    SRL_STRATEGY_DGRAD,     /* dx = dy W^T */
    SRL_STRATEGY_WGRAD,     /* dW = x^T dy */
    SRL_STRATEGY_GEMMS
} srl_strategy_gemm;

typedef struct srl_strategy {
    char name[SRL_STRATEGY_NAME_LEN]; /* the preset it started from; "custom" for fp32 with a
                                       * piece changed (srl_strategy_from_config) */
    srl_slot param, grad, m, v;
    bool has_master;
    srl_slot master;
    bool kahan;
    srl_slot comp;
    srl_arith arith;
    srl_slot act;                        /* activations (problems with a forward pass) */
    char accum[SRL_ACCUM_SPEC_LEN];      /* kernels' accumulation spec (include/srlab/kernels.h) */
    srl_accum accum_cfg;                 /* the same, parsed (srl_accum_parse from binary64) */
    bool mx_on[SRL_STRATEGY_GEMMS];      /* a block-scaled GEMM for Fprop, Dgrad, Wgrad */
    srl_mxgemm mx[SRL_STRATEGY_GEMMS];   /* its config (meaningful when on) */
} srl_strategy;

/* The preset names in order: fp32, mp, bf16-rn, bf16-sr, bf16-sr-exact, bf16-kahan, mp-tc,
 * custom; NULL-terminated. */
extern const char *const srl_strategy_names[];

/* The preset called name (SRL_EPARSE with the list of names otherwise). */
int srl_strategy_preset(srl_strategy *s, const char *name, srl_err *err) SRL_WUR;

/* The strategy of a run config: the preset of key `strategy` (default fp32), then the piece keys
 * present in cfg override their piece (a value "strategy" keeps the preset's):
 *   format, rounding            shorthand for param-format, param-rounding (giving both spellings
 *                               of one piece with different values is an error)
 *   param-format  param-rounding   grad-format  grad-rounding
 *   state-format  state-rounding   (both moments)   m-format m-rounding  v-format v-rounding
 *   master-format (none or a format)  master-rounding   kahan (on/off)  comp-format comp-rounding
 *   update-arith (fp32 or fp64)   act-format act-rounding   accum
 *   mx            off; an srl_mxgemm_parse spec ("fmt=mxfp4,round=sr,scale=3/4,rot=rht")
 *                 from srl_mxgemm_default(): every GEMM block-scaled with it; or a recipe:
 *                   mxfp8       all three mxfp8, rn
 *                   fp4-rn      all three mxfp4, rn, the OCP scale
 *                   fp4-fprop, fp4-dgrad, fp4-wgrad   that one GEMM as fp4-rn, the others off
 *                   fp4-sr      Fprop as fp4-rn; Dgrad and Wgrad sr with the 3/4 rule
 *                   fp4-sr-rht  fp4-sr with the RHT (blocks of 32) on Dgrad and Wgrad
 *                   fp4-had     all three as fp4-rn after the fixed Hadamard rotation (32)
 *   mx-fprop  mx-dgrad  mx-wgrad   off, or a spec applied on top of that GEMM's config from mx
 *                 (from the default when mx leaves it off): that GEMM alone
 * then srl_strategy_check. Messages name the key and the value. The name is the preset's, but
 * fp32 with any piece changed (block-scaled GEMMs included) is named custom (custom is fp32's
 * pieces set piece by piece): a strategy named fp32 runs fp32 everywhere. */
int srl_strategy_from_config(srl_strategy *s, const srl_config *cfg, srl_err *err) SRL_WUR;

/* Reject strategies srlab cannot run faithfully: an update arithmetic that cannot hold a stored
 * tensor's values (fp32 arithmetic with a slot whose format is not a subset of binary32: the
 * read would round the stored value), Kahan compensation together with a master copy, invalid
 * rounding modes. SRL_EINVAL with a message naming the key. */
int srl_strategy_check(const srl_strategy *s, srl_err *err) SRL_WUR;

/* Bytes per parameter actually allocated, by tensor. has_m / has_v: whether the optimizer keeps
 * a first / second moment (srl_optim_has_m / srl_optim_has_v in include/srlab/optim.h). */
typedef struct srl_bytes {
    size_t param, grad, m, v, master, comp, total;
} srl_bytes;
srl_bytes srl_strategy_bytes(const srl_strategy *s, bool has_m, bool has_v);

/* The names of key mx's recipes, in order (NULL past the last). */
const char *srl_strategy_mx_recipe(size_t i);

/* One line: "param bf16 sr:r=16, grad bf16 rn, m bf16 rn, v bf16 rn, update fp32". */
const char *srl_strategy_describe(char *buf, size_t len, const srl_strategy *s);

#ifdef __cplusplus
}
#endif
#endif
