/* src/round/mpfr_round.c: round an exact MPFR value with srlab's rule (src/round/round_core.h,
 * src/round/decide.h).
 *
 * The value is described as |x| = (T + f) 2^qe exactly with MPFR (scaling by a power of two and
 * taking the fractional part are exact at the input's precision); f's 64-bit words are read off
 * by exact scaling too. The decision and the assembly are the shared inline functions. */
#include "srlab/mpfr.h"

#include <math.h>
#include <string.h>

#include "round/round_core.h"

typedef struct {
    mpfr_srcptr f; /* the fraction, 0 <= f < 1 */
} mp_tail_ctx;

/* Word k of f: floor(frac(f 2^(64k)) 2^64). */
static uint64_t mp_tail_word(const void *vctx, uint64_t k)
{
    const mp_tail_ctx *c = (const mp_tail_ctx *)vctx;
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(c->f));
    mpfr_mul_2ui(t, c->f, (unsigned long)(64 * k), MPFR_RNDN); /* exact */
    mpfr_frac(t, t, MPFR_RNDN);                                /* exact */
    mpfr_mul_2ui(t, t, 64, MPFR_RNDN);
    uint64_t w = (uint64_t)mpfr_get_ui(t, MPFR_RNDZ);
    mpfr_clear(t);
    return w;
}

static int sign_cmp(double r, mpfr_srcptr x)
{
    if (isnan(r) || mpfr_nan_p(x))
        return 0;
    int c = mpfr_cmp_d(x, r); /* sign(x - r) */
    return -c > 0 ? 1 : (-c < 0 ? -1 : 0);
}

/* Describe a regular x: e (with tail, whose context reads fr, for words past the first) and the
 * fraction f itself in fr (at x's precision). The exponent range must be MPFR's widest. */
static void mp_describe(srl__exact *e, srl__tail *tail, mpfr_ptr fr, mpfr_srcptr x,
                        const srl_format *f)
{
    const mpfr_prec_t prec = mpfr_get_prec(x);
    mpfr_t a;
    mpfr_init2(a, prec);
    memset(e, 0, sizeof *e);
    e->neg = mpfr_signbit(x) != 0;
    mpfr_abs(a, x, MPFR_RNDN);
    const long ex = (long)mpfr_get_exp(a) - 1; /* floor(log2|x|) */
    if (ex > (long)f->emax + 1) {
        /* At or beyond 2^(emax+2): every neighbour overflows, in every mode. */
        e->trunc = INFINITY;
        e->qe = f->emax - f->p + 1;
        mpfr_set_zero(fr, 1);
    } else {
        e->qe = srl__qe(f, ex < -2000 ? -2000 : (int)ex);
        mpfr_mul_2si(a, a, -(long)e->qe, MPFR_RNDN); /* exact: |x| / 2^qe < 2^p */
        mpfr_frac(fr, a, MPFR_RNDN);                 /* exact */
        mpfr_sub(a, a, fr, MPFR_RNDN);               /* T, exact */
        e->T = (uint64_t)mpfr_get_ui(a, MPFR_RNDZ);
        e->trunc = (double)e->T * srl__pow2(e->qe);
        if (!mpfr_zero_p(fr)) {
            mpfr_t t;
            mpfr_init2(t, prec);
            mpfr_mul_2ui(t, fr, 64, MPFR_RNDN);
            e->f1 = (uint64_t)mpfr_get_ui(t, MPFR_RNDZ);
            e->more = !mpfr_integer_p(t);
            mpfr_clear(t);
            if (e->more) {
                /* f's last bit lies at 2^(EXP(f) - prec): L bits after the point. */
                long L = (long)prec - (long)mpfr_get_exp(fr);
                tail->nwords = (uint64_t)((L + 63) / 64) - 1;
                e->tail = tail;
            }
        }
    }
    mpfr_clear(a);
}

/* The description of the rounding of x (described as e, fraction fr) to y. */
static void mp_info(srl_round_info *info, double y, mpfr_srcptr x, mpfr_srcptr fr,
                    const srl__exact *e, const srl_format *f, srl_rounding m, int away,
                    const srl_rng *rng, uint64_t index)
{
    memset(info, 0, sizeof *info);
    info->x = mpfr_get_d(x, MPFR_RNDN);
    /* 1 - f rounded once: the difference is formed exactly (f's bits run from 2^(EXP-1)
     * down to 2^(EXP-prec)), then rounded to binary64 by mpfr_get_d, subnormals included. */
    mpfr_t fc;
    const long fexp = mpfr_zero_p(fr) ? 0 : -(long)mpfr_get_exp(fr);
    mpfr_init2(fc, mpfr_get_prec(fr) + (mpfr_prec_t)fexp + 2);
    mpfr_ui_sub(fc, 1, fr, MPFR_RNDN); /* exact */
    srl__info_c(info, e, f, m, away, mpfr_get_d(fr, MPFR_RNDN), mpfr_get_d(fc, MPFR_RNDN), rng,
                index);
    mpfr_clear(fc);
    info->ternary = sign_cmp(y, x);
}

int srl_mpfr_round_draw(double *y, srl_round_info *info, mpfr_srcptr x, const srl_format *f,
                        srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index)
{
    if (!srl_rounding_valid(m) || (srl_rounding_is_stochastic(m) && !rng))
        return SRL_EINVAL;
    if (!mpfr_number_p(x) || mpfr_zero_p(x)) {
        const double xd = mpfr_get_d(x, MPFR_RNDN); /* exact for NaN, +-inf, +-0 */
        *y = srl__round_special(xd, f);
        if (info)
            srl__info_special(info, xd, *y);
        return SRL_OK;
    }
    const mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    mpfr_t fr;
    mpfr_init2(fr, mpfr_get_prec(x));
    srl__exact e;
    mp_tail_ctx tctx = {fr};
    srl__tail tail = {mp_tail_word, &tctx, 0};
    mp_describe(&e, &tail, fr, x, f);
    const int away = srl__away(&e, m.mode, m.r, u, rng, index);
    bool ovf;
    *y = srl__assemble(&e, away, f, m.mode, &ovf);
    if (info)
        mp_info(info, *y, x, fr, &e, f, m, away, rng, index);
    mpfr_clear(fr);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return SRL_OK;
}

int srl_mpfr_round(double *y, srl_round_info *info, mpfr_srcptr x, const srl_format *f,
                   srl_rounding m, srl_rng *rng)
{
    uint64_t u, index;
    if (!srl__take_draw(m, rng, &u, &index))
        return SRL_EINVAL;
    return srl_mpfr_round_draw(y, info, x, f, m, u, rng, index);
}
