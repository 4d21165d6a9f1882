/* src/ops.c: exact operations (include/srlab/ops.h).
 * TEMPORARY reference implementation through MPFR only, so that kernels can be built and tested
 * while the fast path is written; div and sqrt are computed to 4096 bits here (not yet exact). */
#include "srlab/ops.h"

#include <math.h>
#include <string.h>

#include <mpfr.h>

#include "srlab/mpfr.h"

static const char *const op_names[SRL_OP_COUNT] = {"add", "sub", "mul", "fma", "div", "sqrt"};

int srl_op_parse(srl_op *op, const char *s, srl_err *err)
{
    for (int i = 0; i < SRL_OP_COUNT; i++)
        if (s && !strcmp(s, op_names[i]))
            return *op = (srl_op)i, SRL_OK;
    return srl_err_set(err, SRL_EPARSE,
                       "unknown operation '%s' (known: add, sub, mul, fma, div, sqrt)",
                       s ? s : "");
}

const char *srl_op_name(srl_op op)
{
    return (unsigned)op < SRL_OP_COUNT ? op_names[op] : "invalid";
}

int srl_op_arity(srl_op op)
{
    return op == SRL_FMA ? 3 : op == SRL_SQRT ? 1 : 2;
}

int srl_op_exact(mpfr_t r, srl_op op, double a, double b, double c)
{
    mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(mpfr_get_emin_min());
    mpfr_set_emax(mpfr_get_emax_max());
    int t = 0;
    if (op == SRL_DIV || op == SRL_SQRT) {
        if (op == SRL_DIV)
            t = mpfr_div_d(r, mpfr_set_d(r, a, MPFR_RNDN) ? r : r, b, MPFR_RNDN);
        else
            t = mpfr_sqrt(r, (mpfr_set_d(r, a, MPFR_RNDN), r), MPFR_RNDN);
    } else {
        mpfr_t x, y, z;
        mpfr_inits2(4400, x, y, z, (mpfr_ptr)0);
        mpfr_set_d(x, a, MPFR_RNDN);
        mpfr_set_d(y, b, MPFR_RNDN);
        mpfr_set_d(z, c, MPFR_RNDN);
        mpfr_set_prec(r, 4400);
        switch (op) {
        case SRL_ADD: t = mpfr_add(r, x, y, MPFR_RNDN); break;
        case SRL_SUB: t = mpfr_sub(r, x, y, MPFR_RNDN); break;
        case SRL_MUL: t = mpfr_mul(r, x, y, MPFR_RNDN); break;
        default: t = mpfr_fma(r, x, y, z, MPFR_RNDN); break;
        }
        mpfr_clears(x, y, z, (mpfr_ptr)0);
    }
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    return t;
}

int srl_op_mpfr_draw(double *y, srl_round_info *info, srl_op op, double a, double b, double c,
                     const srl_format *f, srl_rounding m, uint64_t u, const srl_rng *rng,
                     uint64_t index)
{
    mpfr_t r;
    mpfr_init2(r, 4096);
    (void)srl_op_exact(r, op, a, b, c);
    int st = srl_mpfr_round_draw(y, info, r, f, m, u, rng, index);
    mpfr_clear(r);
    return st;
}

double srl_op_apply_draw(srl_op op, double a, double b, double c, const srl_format *f,
                         srl_rounding m, uint64_t u, const srl_rng *rng, uint64_t index)
{
    double y = NAN;
    if (srl_op_mpfr_draw(&y, NULL, op, a, b, c, f, m, u, rng, index))
        return NAN;
    return y;
}

double srl_op_apply(srl_op op, double a, double b, double c, const srl_format *f,
                    srl_rounding m, srl_rng *rng)
{
    uint64_t u = 0, index = 0;
    if (srl_rounding_is_stochastic(m)) {
        if (!rng)
            return NAN;
        index = rng->counter;
        u = srl_rng_next(rng);
    }
    return srl_op_apply_draw(op, a, b, c, f, m, u, rng, index);
}

int srl_op_explain(srl_round_info *info, srl_op op, double a, double b, double c,
                   const srl_format *f, srl_rounding m, srl_rng *rng)
{
    uint64_t u = 0, index = 0;
    if (srl_rounding_is_stochastic(m)) {
        if (!rng)
            return SRL_EINVAL;
        index = rng->counter;
        u = srl_rng_next(rng);
    }
    double y;
    return srl_op_mpfr_draw(&y, info, op, a, b, c, f, m, u, rng, index);
}

srl_op_path srl_op_which_path(srl_op op, double a, double b, double c, const srl_format *f)
{
    (void)op, (void)a, (void)b, (void)c, (void)f;
    return SRL_PATH_MPFR;
}
