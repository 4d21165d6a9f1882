/* src/check/bugs.c: the realistic defects of `srlab check --mutate bug` (include/srlab/check.h):
 * the table of rounding functions through which the checks' experiments round, the optimizer
 * step they call, and the wrong variants that replace the library's functions there when a
 * defect is asked for. The defects
 * live here, in the check layer: the library's rounding is never touched, so a defect reaches
 * only the experiments that round through srl__chk_round_ops (src/check/check_impl.h).
 *
 * Each variant keeps the library's draw discipline (srl/rounding.h: draw rng->counter per scalar
 * rounding, rng->counter + i for element i of an array, none for a deterministic mode) unless
 * breaking it is the defect, and rounds correctly wherever its defect does not apply. */
#include "check/check_impl.h"

#include <math.h>
#include <stddef.h>

#include "srlab/format.h"
#include "srlab/optim.h"
#include "srlab/rounding.h"
#include "srlab/tensor.h"

static const struct {
    const char *name, *text;
} bug_info[SRL_CHECK_BUG_COUNT] = {
    [SRL_CHECK_BUG_NONE] = {"none", "no defect"},
    [SRL_CHECK_BUG_SR8] = {"sr8", "sr decides with 8 random bits instead of the exact comparison"},
    [SRL_CHECK_BUG_SR_LE] = {"sr-le", "sr rounds away from zero when U <= f instead of U < f"},
    [SRL_CHECK_BUG_TIES_AWAY] = {"ties-away", "rn breaks ties away from zero instead of to even"},
    [SRL_CHECK_BUG_DRAW_HALF] = {"draw-half", "element i of an array reuses draw i/2"},
    [SRL_CHECK_BUG_SUBNORMAL] = {"subnormal",
                                 "fp16's subnormal spacing off by a factor 2 (2^-23, not 2^-24)"},
    [SRL_CHECK_BUG_SR12] = {"sr12", "the seed paper's sr:r=16 write done with 12 random bits"},
    [SRL_CHECK_BUG_ADAM_EPS] = {"adam-eps",
                                "Adam divides by sqrt(v + eps) instead of sqrt(v) + eps"},
    [SRL_CHECK_BUG_REPLICA_STREAM] = {"replica-stream",
                                      "replicas' shared SR streams differ by the replica index"},
};

const char *srl_check_bug_name(srl_check_bug b)
{
    return (unsigned)b < SRL_CHECK_BUG_COUNT ? bug_info[b].name : NULL;
}

const char *srl_check_bug_text(srl_check_bug b)
{
    return (unsigned)b < SRL_CHECK_BUG_COUNT ? bug_info[b].text : NULL;
}

/* ---- the variants ---- */

/* fp16 (p 11, emin -14): the format whose subnormal spacing the defect gets wrong. */
static bool is_fp16(const srl_format *f)
{
    return f->p == 11 && f->emin == -14 && f->emax == 15 && f->subnormals;
}

/* The defect "subnormal": |x| below 2^emin of fp16 rounded onto multiples of 2^-23 (twice the
 * spacing 2^(emin-p+1) = 2^-24), in the directed, nearest and stochastic modes; one draw for
 * a stochastic mode, as the library takes. */
static double subnormal_wrong(double x, const srl_format *f, srl_rounding m, srl_rng *rng)
{
    const double q2 = ldexp(1, f->emin - f->p + 2), a = fabs(x);
    const double k = floor(a / q2), fr = a / q2 - k; /* exact: scaling by a power of two */
    bool away;
    switch (m.mode) {
    case SRL_RN: away = fr > 0.5 || (fr == 0.5 && fmod(k, 2) != 0); break;
    case SRL_RNA: away = fr >= 0.5; break;
    case SRL_SR: away = srl_rng_uniform(rng) < fr; break;
    case SRL_SR_BITS:
        away = (double)(srl_rng_next(rng) >> (64 - m.r)) < floor(ldexp(fr, m.r));
        break;
    default: return srl_round(x, f, m, rng); /* the other modes keep the right grid */
    }
    const double y = (k + (away && fr > 0)) * q2;
    return x < 0 ? -y : y;
}

/* sr deciding "away" when U <= f (U = the draw's random bits as a fraction): exact sr compares
 * all 64 bits of the draw with f 2^64, sr:r=R its top R bits with floor(f 2^R). */
static double sr_le_wrong(double x, const srl_format *f, srl_rounding m, srl_rng *rng)
{
    srl_round_info in;
    if (srl_round_explain(&in, x, f, (srl_rounding){SRL_RZ, 0}, NULL) || in.exact)
        return srl_round(x, f, m, rng);
    const uint64_t w = srl_rng_next(rng);
    const int bits = m.mode == SRL_SR_BITS ? m.r : 64;
    const uint64_t u = bits == 64 ? w : w >> (64 - bits);
    const uint64_t F = (uint64_t)ldexp(in.frac, bits); /* < 2^64: f <= 1 - 2^-53 */
    const double t = in.result, q = in.ru - in.rd; /* rz's result, the spacing */
    return u <= F ? t + (x < 0 ? -q : q) : t;
}

/* The scalar variant of defect b. */
static double round_with(srl_check_bug b, double x, const srl_format *f, srl_rounding m,
                         srl_rng *rng)
{
    const bool sr = m.mode == SRL_SR, srb = m.mode == SRL_SR_BITS;
    switch (b) {
    case SRL_CHECK_BUG_SR8:
        if (sr)
            m = (srl_rounding){SRL_SR_BITS, 8};
        break;
    case SRL_CHECK_BUG_SR_LE:
        if (sr || srb)
            return sr_le_wrong(x, f, m, rng);
        break;
    case SRL_CHECK_BUG_TIES_AWAY:
        if (m.mode == SRL_RN)
            m = (srl_rounding){SRL_RNA, 0};
        break;
    case SRL_CHECK_BUG_SUBNORMAL:
        if (is_fp16(f) && fabs(x) < ldexp(1, f->emin))
            return subnormal_wrong(x, f, m, rng);
        break;
    case SRL_CHECK_BUG_SR12:
        if (srb && m.r == 16)
            m.r = 12;
        break;
    default: break;
    }
    return srl_round(x, f, m, rng);
}

/* An array through the scalar variant, element i with draw rng->counter + i (or, for the defect
 * draw-half, the draw of element 2 floor(i/2)); rng->counter += n when stochastic. */
static int round_array_with(srl_check_bug b, double *y, const double *x, size_t n,
                            const srl_format *f, srl_rounding m, srl_rng *rng)
{
    const bool stoch = srl_rounding_is_stochastic(m);
    if (stoch && !rng)
        return SRL_EINVAL;
    const uint64_t start = stoch ? rng->counter : 0;
    srl_rng pair_start;
    for (size_t i = 0; i < n; i++) {
        if (b == SRL_CHECK_BUG_DRAW_HALF && stoch) {
            if (i % 2 == 0)
                pair_start = *rng; /* the draw of element i, reused by element i + 1 */
            srl_rng r = pair_start;
            y[i] = srl_round(x[i], f, m, &r);
            if (i % 2 == 0)
                *rng = r;
        } else {
            y[i] = round_with(b, x[i], f, m, rng);
        }
    }
    if (stoch)
        srl_rng_seek(rng, start + n);
    return SRL_OK;
}

/* One pair of wrappers per defect: the table holds plain function pointers. */
#define BUG_FNS(tag, bug)                                                                          \
    static double round_##tag(double x, const srl_format *f, srl_rounding m, srl_rng *rng)        \
    {                                                                                              \
        return round_with(bug, x, f, m, rng);                                                      \
    }                                                                                              \
    static int array_##tag(double *y, const double *x, size_t n, const srl_format *f,             \
                           srl_rounding m, srl_rng *rng)                                           \
    {                                                                                              \
        return round_array_with(bug, y, x, n, f, m, rng);                                          \
    }
BUG_FNS(sr8, SRL_CHECK_BUG_SR8)
BUG_FNS(sr_le, SRL_CHECK_BUG_SR_LE)
BUG_FNS(ties, SRL_CHECK_BUG_TIES_AWAY)
BUG_FNS(half, SRL_CHECK_BUG_DRAW_HALF)
BUG_FNS(sub, SRL_CHECK_BUG_SUBNORMAL)
BUG_FNS(sr12, SRL_CHECK_BUG_SR12)

static const srl__chk_round_ops ops[SRL_CHECK_BUG_COUNT] = {
    [SRL_CHECK_BUG_NONE] = {srl_round, srl_round_array},
    [SRL_CHECK_BUG_SR8] = {round_sr8, array_sr8},
    [SRL_CHECK_BUG_SR_LE] = {round_sr_le, array_sr_le},
    [SRL_CHECK_BUG_TIES_AWAY] = {round_ties, array_ties},
    [SRL_CHECK_BUG_DRAW_HALF] = {round_half, array_half},
    [SRL_CHECK_BUG_SUBNORMAL] = {round_sub, array_sub},
    [SRL_CHECK_BUG_SR12] = {round_sr12, array_sr12},
    /* the optimizer and replica defects do not touch rounding (replica-stream: T12a runs the
     * replicas with streams keyed by replica index, src/check/t12_replicas.c) */
    [SRL_CHECK_BUG_ADAM_EPS] = {srl_round, srl_round_array},
    [SRL_CHECK_BUG_REPLICA_STREAM] = {srl_round, srl_round_array},
};

const srl__chk_round_ops *srl__chk_round(const srl_check_opts *o)
{
    return &ops[(unsigned)o->bug < SRL_CHECK_BUG_COUNT ? o->bug : SRL_CHECK_BUG_NONE];
}

/* ---- the optimizer step of the experiments ---- */

static int step_right(srl_weights *W, const srl_optim_config *c, uint64_t t, double lr)
{
    return srl_optim_step(NULL, W, c, t, lr);
}

/* Adam (adam, no weight decay) as include/srlab/optim.h states it in binary32, but dividing by
 * sqrt(v'/bc2 + eps) instead of sqrt(v'/bc2) + eps: the defect adam-eps. Plain weights only (no
 * master, no compensation): what the experiments that take this table use. */
static int step_adam_eps_wrong(srl_weights *W, const srl_optim_config *c, uint64_t t, double lr)
{
    if (c->kind != SRL_OPTIM_ADAM || c->wd != 0 || t == 0)
        return step_right(W, c, t, lr);
    const float b1 = (float)c->beta1, b2 = (float)c->beta2, c1 = (float)(1 - c->beta1),
                c2 = (float)(1 - c->beta2), bc1 = (float)(1 - pow(c->beta1, (double)t)),
                bc2 = (float)(1 - pow(c->beta2, (double)t)), eps = (float)c->eps,
                lr32 = (float)lr;
    for (size_t j = 0; j < W->count; j++) {
        const srl_weight *p = &W->p[j];
        if (p->master || p->comp || !p->m || !p->v)
            return SRL_EINVAL;
        for (size_t i = 0; i < p->n; i++) {
            float x, g, m, v;
            srl_tensor_get_f(&x, p->w, i, 1);
            srl_tensor_get_f(&g, p->g, i, 1);
            srl_tensor_get_f(&m, p->m, i, 1);
            srl_tensor_get_f(&v, p->v, i, 1);
            const float m1 = b1 * m + c1 * g, v1 = b2 * v + (c2 * g) * g;
            const float s = lr32 * ((m1 / bc1) / sqrtf(v1 / bc2 + eps)), xe = x - s;
            int st = srl_tensor_put_f(p->m, i, &m1, 1, W->strat.m.mode, t - 1);
            if (!st)
                st = srl_tensor_put_f(p->v, i, &v1, 1, W->strat.v.mode, t - 1);
            if (!st)
                st = srl_tensor_put_f(p->w, i, &xe, 1, W->strat.param.mode, t - 1);
            if (st)
                return st;
        }
    }
    return SRL_OK;
}

srl__chk_step_fn srl__chk_step(const srl_check_opts *o)
{
    return o->bug == SRL_CHECK_BUG_ADAM_EPS ? step_adam_eps_wrong : step_right;
}
