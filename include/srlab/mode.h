/* srlab/mode.h: rounding modes as values (docs/design.md §3). What each mode does is stated
 * in srlab/rounding.h, which rounds; this header only names, parses and classifies them. */
#ifndef SRLAB_MODE_H
#define SRLAB_MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "srlab/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum srl_mode {
    SRL_RN = 0,
    SRL_RNA,
    SRL_RZ,
    SRL_RU,
    SRL_RD,
    SRL_RO,
    SRL_SR,
    SRL_SR_EQ,
    SRL_SR_BITS,
    SRL_MODE_COUNT
} srl_mode;

typedef struct srl_rounding {
    srl_mode mode;
    int r; /* random bits for SRL_SR_BITS, 1..64; 0 otherwise */
} srl_rounding;

#define SRL_ROUND_RN ((srl_rounding){SRL_RN, 0})
#define SRL_ROUND_SR ((srl_rounding){SRL_SR, 0})

/* Parse "rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq", "sr:r=R", in any case, and the
 * names other tools and IEEE 754 give the modes (case ignored, '_' read as '-'): nearest,
 * nearest-even, rne, rtne, ties-to-even, roundTiesToEven (rn); nearest-away, rnta, ties-to-away,
 * roundTiesToAway (rna); toward-zero, roundTowardZero, rtz, truncate, trunc, chop (rz); up,
 * toward-positive, roundTowardPositive, rtp, ceil, ceiling (ru); down, toward-negative,
 * roundTowardNegative, floor (rd); odd, round-to-odd, rto (ro); stochastic,
 * stochastic-proportional, sr-prop, proportional (sr); stochastic-equal, sr-equal (sr-eq).
 * srl_rounding_name gives the one canonical name back. */
int srl_rounding_parse(srl_rounding *m, const char *s, srl_err *err) SRL_WUR;
/* Canonical name into buf ("sr:r=16"); returns buf. */
const char *srl_rounding_name(char *buf, size_t len, srl_rounding m);
bool srl_rounding_is_stochastic(srl_rounding m);
bool srl_rounding_valid(srl_rounding m);

#ifdef __cplusplus
}
#endif
#endif
