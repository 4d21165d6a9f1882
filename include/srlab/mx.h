/* srlab/mx.h: block-scaled formats (OCP Microscaling v1.0, NVIDIA's NVFP4), quantized exactly
 * in every rounding mode (docs/mx.md).
 *
 * A block format stores an array as blocks of `block` consecutive elements, each element a value
 * of a small element format E (srlab/format.h presets, all saturating) and each block one shared
 * scale:
 *   mxfp8 (= mxfp8-e4m3), mxfp8-e5m2, mxfp6-e3m2 (= mxfp6), mxfp6-e2m3, mxfp4 (E2M1), mxint8:
 *        OCP MX, 32 elements, an E8M0 scale 2^k, -127 <= k <= 127, code k + 127 (0xFF: NaN). The
 *        elements saturate at E's largest finite (OCP permits it for FP8 and prescribes it for
 *        FP6/FP4, which have no Inf or NaN); e4m3 and e5m2 elements are those presets with
 *        saturate=on.
 *   nvfp4: E2M1 elements in blocks of 16, an E4M3 block scale s_b and a binary32 tensor scale
 *        s_t: an element stands for e s_b s_t.
 * "NAME,block=B" changes the block size (1 <= B <= 4096).
 *
 * Quantization (srl_mx_quantize) is a pure function of (block, scale rule, mode, draws):
 *   MX    k from the block's largest magnitude amax by the rule (src/round/mx_scale.h):
 *           ocp    k = floor(log2 amax) - emax_E (OCP 6.3); an element above xmax_E 2^k clips
 *           3/4    the same k, the block multiplied by 3/4 first (Tseng, Yu, Park 2025): nothing
 *                  clips; the result estimates (3/4) x (srl_mx_gain gives 3/4)
 *           ceil   the smallest k with amax <= xmax_E 2^k: nothing clips
 *         clamped to [-127, 127] (amax = 0: -127); then each element is x (or (3/4) x, exact)
 *         rounded once with the mode into E scaled by 2^k, which is 2^k round(x 2^-k) exactly
 *         and is the one rounding of srlab/rounding.h: the same decision, overflow (here:
 *         saturation), subnormals and draws. The output is the dequantized value.
 *   NVFP4 s_t = RN_binary32(amax_tensor / (448 t)) (2^-149 if that is 0; 1 for an all-zero
 *         array), s_b = round(amax_block / (t s_t)) into E4M3 (saturating), exact quotients,
 *         with t = 6 and rn (ocp: an element may exceed 6 by s_b's rounding, up to 2^-4, and
 *         clip), t = 6 and ru (ceil: nothing clips but where s_b saturates at 448), t = 4.5 and
 *         rn (3/4: nothing clips; the dequantized value estimates x itself, gain 1). Each element is the
 *         exact quotient x / (s_b s_t) rounded once into E2M1 with the mode (srlab/ops.h), and
 *         the output is e s_b s_t (exact in binary64). A block whose s_b is 0 quantizes to 0.
 * A block holding a NaN or an infinity gets the NaN scale (E8M0 0xFF, E4M3 0x7F) and all its
 * outputs are NaN (the element formats have no NaN to carry it); NVFP4's tensor amax is over
 * the finite values.
 *
 * Draws: element i of the array uses draw rng->counter + i (exact or not) and rng->counter
 * advances by n; the result is bit-identical for any thread count. Deterministic modes draw
 * nothing (rng may be NULL).
 *
 * Nothing here allocates on the hot path, prints or exits. */
#ifndef SRLAB_MX_H
#define SRLAB_MX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/mode.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_mx_scale_kind {
    SRL_MX_E8M0 = 0, /* power of two 2^k per block (OCP MX) */
    SRL_MX_E4M3_T32  /* E4M3 per block times a binary32 per tensor (NVFP4) */
} srl_mx_scale_kind;

#define SRL_MX_NAME_LEN 48

typedef struct srl_mx_format {
    char name[SRL_MX_NAME_LEN];
    srl_format elem;         /* the element format */
    char elem_name[24];      /* its spec as the table gives it ("e4m3,saturate=on", "e2m1") */
    int block;               /* elements per block */
    srl_mx_scale_kind scale; /* how a block is scaled */
} srl_mx_format;

typedef enum srl_mx_rule {
    SRL_MX_OCP = 0, /* floor(log2 amax) - emax_E (NVFP4: s_b to nearest) */
    SRL_MX_34,      /* the OCP scale with the block times 3/4 (NVFP4: target 4.5 instead of 6) */
    SRL_MX_CEIL,    /* the smallest scale that does not clip (NVFP4: s_b rounded up) */
    SRL_MX_RULE_COUNT
} srl_mx_rule;

/* "mxfp8", "mxfp8-e4m3", "mxfp8-e5m2", "mxfp6", "mxfp6-e3m2", "mxfp6-e2m3", "mxfp4", "mxint8",
 * "nvfp4", optionally followed by ",block=B". Unknown names and keys give SRL_EPARSE. */
int srl_mx_parse(srl_mx_format *f, const char *spec, srl_err *err) SRL_WUR;
/* The presets in a fixed order (mxfp8-e4m3, mxfp8-e5m2, mxfp6-e3m2, mxfp6-e2m3, mxfp4, mxint8,
 * nvfp4). */
size_t srl_mx_preset_count(void);
const srl_mx_format *srl_mx_preset(size_t i);
/* True when spec names a block format (its text before any comma is a block format's name). */
bool srl_mx_is_name(const char *spec);

/* "ocp", "3/4", "ceil". */
int srl_mx_rule_parse(srl_mx_rule *r, const char *s, srl_err *err) SRL_WUR;
const char *srl_mx_rule_name(srl_mx_rule r);
/* What the dequantized values estimate, as a multiple of x: 3/4 for MX with the 3/4 rule, else 1
 * (a GEMM of two such operands divides by gain_a gain_b once at the end). */
double srl_mx_gain(const srl_mx_format *f, srl_mx_rule r);

/* NVFP4's tensor scale s_t of x[0..n) under rule r (1 for the MX formats). */
double srl_mx_tensor_scale(const double *x, size_t n, const srl_mx_format *f, srl_mx_rule r);

/* One block's scale. */
typedef struct srl_mx_scale {
    bool nan;      /* the block holds a NaN or an infinity */
    int k;         /* MX: the exponent of 2^k */
    double value;  /* the factor an element is multiplied by: 2^k, or s_b s_t (NaN when nan) */
    double sb;     /* NVFP4: s_b (E4M3); MX: 2^k */
    uint8_t code;  /* E8M0 k + 127 (0xFF NaN), or s_b's E4M3 encoding (0x7F NaN) */
} srl_mx_scale;

/* The scale of the block x[0..n) (n <= f->block) under rule r; ts is the tensor scale
 * (srl_mx_tensor_scale; ignored by MX). */
int srl_mx_block_scale(srl_mx_scale *s, const double *x, size_t n, const srl_mx_format *f,
                       srl_mx_rule r, double ts) SRL_WUR;

/* Quantize x[0..n) block by block (the last block may be partial) and write the dequantized
 * values to y; scales (may be NULL) gets each block's scale code, ceil(n / block) bytes; ts
 * (may be NULL) NVFP4's tensor scale. y may alias x exactly. One draw per element when m is
 * stochastic (rng then non-NULL), n in all. SRL_EINVAL: an invalid mode or a NULL rng. */
int srl_mx_quantize(double *y, uint8_t *scales, double *ts, const double *x, size_t n,
                    const srl_mx_format *f, srl_mx_rule r, srl_rounding m, srl_rng *rng) SRL_WUR;

/* The same for binary32 arrays: the same draws, scales and elements as srl_mx_quantize of the
 * same values. The dequantized MX values are binary32 numbers unless they exceed its range
 * (possible only with the ceil rule for amax within a factor 1.5 of FLT_MAX: then +-inf);
 * NVFP4's e s_b s_t can have 30 bits and is stored rounded to nearest (its scales are exact). */
int srl_mx_quantize_float(float *y, uint8_t *scales, double *ts, const float *x, size_t n,
                          const srl_mx_format *f, srl_mx_rule r, srl_rounding m,
                          srl_rng *rng) SRL_WUR;

/* Everything about quantizing one block x[0..n) (n <= f->block), for teaching views: its scale
 * into *s and, per element, info[i] as srl_round_explain describes a rounding, in dequantized
 * units (x the input; rd, ru, result: neighbours and result times the scale; frac, p_up: the
 * element's). ts: the tensor scale (NVFP4). Draws as srl_mx_quantize of the block. */
int srl_mx_explain(srl_mx_scale *s, srl_round_info *info, const double *x, size_t n, double ts,
                   const srl_mx_format *f, srl_mx_rule r, srl_rounding m, srl_rng *rng) SRL_WUR;

/* The element code of the element value e (a value of f->elem): its srlab/format.h encoding,
 * for mxint8 the OCP two's complement integer e 64. SRL_EINVAL if e is not a value of it. */
int srl_mx_element_code(uint8_t *code, const srl_mx_format *f, double e) SRL_WUR;

#ifdef __cplusplus
}
#endif
#endif
