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

/* What users of other tools and of IEEE 754 call the modes, compared without regard to case
 * and with '_' as '-' ("ROUND_TOWARD_ZERO", "Stochastic"): one row per alias. */
static const struct alias {
    const char *name;
    srl_mode mode;
} aliases[] = {
    {"nearest", SRL_RN},           {"nearest-even", SRL_RN},      {"rne", SRL_RN},
    {"rtne", SRL_RN},              {"ties-to-even", SRL_RN},      {"tiestoeven", SRL_RN},
    {"roundtiestoeven", SRL_RN},   {"round-nearest-even", SRL_RN},
    {"nearest-away", SRL_RNA},     {"rnta", SRL_RNA},             {"ties-to-away", SRL_RNA},
    {"tiestoaway", SRL_RNA},       {"roundtiestoaway", SRL_RNA},
    {"toward-zero", SRL_RZ},       {"towardzero", SRL_RZ},        {"roundtowardzero", SRL_RZ},
    {"round-toward-zero", SRL_RZ}, {"rtz", SRL_RZ},               {"truncate", SRL_RZ},
    {"trunc", SRL_RZ},             {"chop", SRL_RZ},
    {"up", SRL_RU},                {"toward-positive", SRL_RU},   {"towardpositive", SRL_RU},
    {"roundtowardpositive", SRL_RU}, {"round-toward-positive", SRL_RU}, {"rtp", SRL_RU},
    {"ceil", SRL_RU},              {"ceiling", SRL_RU},
    {"down", SRL_RD},              {"toward-negative", SRL_RD},   {"towardnegative", SRL_RD},
    {"roundtowardnegative", SRL_RD}, {"round-toward-negative", SRL_RD}, {"floor", SRL_RD},
    {"odd", SRL_RO},               {"round-to-odd", SRL_RO},      {"rto", SRL_RO},
    {"stochastic", SRL_SR},        {"stochastic-proportional", SRL_SR},
    {"sr-prop", SRL_SR},           {"proportional", SRL_SR},
    {"stochastic-equal", SRL_SR_EQ}, {"sr-equal", SRL_SR_EQ},
};

/* s lowercased, with '_' as '-', into buf (len bytes); false when it does not fit. */
static bool normalise(char *buf, size_t len, const char *s)
{
    size_t n = 0;
    for (; *s; s++) {
        if (n + 1 >= len)
            return false;
        char c = *s;
        buf[n++] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c == '_' ? '-' : c;
    }
    buf[n] = 0;
    return true;
}

int srl_rounding_parse(srl_rounding *m, const char *s, srl_err *err)
{
    static const char *known = "rn, rna, rz, ru, rd, ro, sr, sr-eq, sr:r=R (1 <= R <= 64), or "
                               "names such as nearest, toward-zero, stochastic";
    char t[40];
    if (!s || !*s)
        return srl_err_set(err, SRL_EPARSE, "empty rounding mode; known: %s", known);
    if (!normalise(t, sizeof t, s))
        return srl_err_set(err, SRL_EPARSE, "unknown rounding mode '%.40s...'; known: %s", s,
                           known);
    for (int k = 0; k < SRL_SR_BITS; k++) {
        if (strcmp(t, mode_names[k]) == 0) {
            m->mode = (srl_mode)k;
            m->r = 0;
            return SRL_OK;
        }
    }
    for (size_t k = 0; k < sizeof aliases / sizeof *aliases; k++) {
        if (strcmp(t, aliases[k].name) == 0) {
            m->mode = aliases[k].mode;
            m->r = 0;
            return SRL_OK;
        }
    }
    if (strncmp(t, "sr:r=", 5) == 0) {
        const char *v = t + 5;
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
