/* src/core/mode.c: rounding modes as values: their names, parsing and classification
 * (include/srlab/mode.h). Rounding itself is src/round/. */
#include "srlab/mode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mode names ---- */

static const char *const mode_names[SRL_MODE_COUNT] = {
    [SRL_RN] = "rn", [SRL_RNA] = "rna", [SRL_RZ] = "rz",       [SRL_RU] = "ru",
    [SRL_RD] = "rd", [SRL_RO] = "ro",   [SRL_SR] = "sr",       [SRL_SR_EQ] = "sr-eq",
    [SRL_SR_BITS] = "sr:r=",
};

int srl_rounding_parse(srl_rounding *m, const char *s, srl_err *err)
{
    static const char *known = "rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64)";
    if (!s || !*s)
        return srl_err_set(err, SRL_EPARSE, "empty rounding mode; known: %s", known);
    for (int k = 0; k < SRL_SR_BITS; k++) {
        if (strcmp(s, mode_names[k]) == 0) {
            m->mode = (srl_mode)k;
            m->r = 0;
            return SRL_OK;
        }
    }
    if (strncmp(s, "sr:r=", 5) == 0) {
        const char *v = s + 5;
        char *end;
        long r = strtol(v, &end, 10);
        if (!*v || *end || end == v)
            return srl_err_set(err, SRL_EPARSE, "rounding '%s': R must be an integer", s);
        if (r < 1 || r > 64)
            return srl_err_set(err, SRL_EINVAL,
                               "rounding '%s': the number of random bits R must be between 1 "
                               "and 64", s);
        m->mode = SRL_SR_BITS;
        m->r = (int)r;
        return SRL_OK;
    }
    return srl_err_set(err, SRL_EPARSE, "unknown rounding mode '%s'; known: %s", s, known);
}

const char *srl_rounding_name(char *buf, size_t len, srl_rounding m)
{
    if (!srl_rounding_valid(m))
        snprintf(buf, len, "invalid");
    else if (m.mode == SRL_SR_BITS)
        snprintf(buf, len, "sr:r=%d", m.r);
    else
        snprintf(buf, len, "%s", mode_names[m.mode]);
    return buf;
}

bool srl_rounding_valid(srl_rounding m)
{
    if ((unsigned)m.mode >= SRL_MODE_COUNT)
        return false;
    if (m.mode == SRL_SR_BITS)
        return m.r >= 1 && m.r <= 64;
    return true;
}

bool srl_rounding_is_stochastic(srl_rounding m)
{
    return m.mode == SRL_SR || m.mode == SRL_SR_EQ || m.mode == SRL_SR_BITS;
}
