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

/* Parse "rn", "rna", "rz", "ru", "rd", "ro", "sr", "sr-eq", "sr:r=R". */
int srl_rounding_parse(srl_rounding *m, const char *s, srl_err *err) SRL_WUR;
/* Canonical name into buf ("sr:r=16"); returns buf. */
const char *srl_rounding_name(char *buf, size_t len, srl_rounding m);
bool srl_rounding_is_stochastic(srl_rounding m);
bool srl_rounding_valid(srl_rounding m);

#ifdef __cplusplus
}
#endif
#endif
