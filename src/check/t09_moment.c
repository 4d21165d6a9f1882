/* src/check/t09_moment.c: the checks of theory/T09-second-moment.md: Adam's second moment v
 * stored in bf16 under RN with beta2 = 0.999 (quad1d with a = 0: the gradient is pure noise of
 * sd 1), watched after every step by a hook on the weights.
 *
 *   T09a  v never decreases (step 1: 1 - beta2 <= 2^-(p+1)); exact count of decreases.
 *   T09b  v rises exactly when g^2 > r(v) v, r(v) = 1 + ulp(v) / (2 (1 - beta2) v) (step 2), for
 *         every step outside the binary32 arithmetic's margin (those are counted, not judged).
 * Seeds 1 .. N. */
#include "check/check_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/optim.h"
#include "srlab/tensor.h"
#include "srlab/theory.h"

typedef struct vtrack {
    double vprev, beta2;
    bool ratio_one; /* the mutated prediction r(v) = 1 */
    uint64_t falls, rises, bad, near, judged;
} vtrack;

static int vtrack_hook(void *arg, const srl_weights *W, uint64_t t, const srl_step_stats *st)
{
    (void)st;
    vtrack *k = arg;
    double v, g;
    srl_tensor_get_d(&v, W->p[0].v, 0, 1);
    srl_tensor_get_d(&g, W->p[0].g, 0, 1);
    const double vp = k->vprev;
    k->vprev = v;
    if (t == 1 || !(vp > 0))
        return 0; /* v_0 = 0 is not a normal value */
    k->falls += v < vp;
    k->rises += v > vp;
    srl_t09 p;
    if (srl_t09_second_moment(&p, vp, k->beta2, &W->p[0].v->fmt) != SRL_OK)
        return 0;
    /* T09 tolerance: the binary32 update v' = b2 v + (c2 g) g carries at most 4 roundings of
     * relative u32 (hyper-parameters included), which moves the threshold on g^2 by at most
     * 4 u32 (b2 v + c2 g^2) / c2; steps that close are counted, not judged */
    const double c2 = 1 - k->beta2;
    const double margin = 4 * SRL__CHK_U32 * (k->beta2 * vp + c2 * g * g) / c2;
    const double thr = (k->ratio_one ? 1.0 : p.rise_ratio) * vp;
    if (fabs(g * g - thr) <= margin) {
        k->near++;
        return 0;
    }
    k->judged++;
    k->bad += (v > vp) != (g * g > thr);
    return 0;
}

typedef struct t09job {
    srl__chk_kv kv;
    vtrack *tr;
} t09job;

static int t09_item(void *ctx, size_t i, srl_err *err)
{
    t09job *j = ctx;
    return srl__chk_run(NULL, SRL_RUN_TRAIN, "quad1d", &j->kv, (uint64_t)i + 1, vtrack_hook,
                        &j->tr[i], err);
}

#define T09_STEPS 5000

/* The runs of T09a-b: seeds 1 .. *N (set here) of T09_STEPS steps each, their tracks summed. */
static int t09_run(vtrack *sum, uint64_t *N, const srl_check_opts *o, srl_err *err)
{
    const uint64_t steps = T09_STEPS;
    *N = srl__chk_seeds(o, 2, 5);
    t09job j;
    srl__chk_kv_init(&j.kv);
    srl__chk_kv_set(&j.kv, "opt", "adam");
    srl__chk_kv_set(&j.kv, "beta2", "0.999");
    srl__chk_kv_set(&j.kv, "strategy",
                    o->mutation == SRL_CHECK_MUT_EXPERIMENT ? "fp32" : "bf16-rn");
    srl__chk_kv_set(&j.kv, "a", "0");
    srl__chk_kv_set(&j.kv, "grad-noise", "1");
    srl__chk_kv_set(&j.kv, "steps", "%llu", (unsigned long long)steps);
    srl__chk_kv_set(&j.kv, "log-every", "%llu", (unsigned long long)steps);
    j.tr = calloc((size_t)*N, sizeof *j.tr);
    if (!j.tr)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < *N; i++) {
        j.tr[i].beta2 = 0.999;
        j.tr[i].ratio_one = o->mutation == SRL_CHECK_MUT_PREDICTION;
    }
    int st = srl__chk_parallel((size_t)*N, t09_item, &j, err);
    memset(sum, 0, sizeof *sum);
    for (uint64_t i = 0; i < *N; i++) {
        sum->falls += j.tr[i].falls;
        sum->rises += j.tr[i].rises;
        sum->bad += j.tr[i].bad;
        sum->near += j.tr[i].near;
        sum->judged += j.tr[i].judged;
    }
    free(j.tr);
    return st;
}

int srl__chk_moment_no_decrease(srl_check_result *out, const srl__chk_row *row,
                                const srl_check_opts *o, srl_err *err)
{
    uint64_t N;
    vtrack s;
    const int st = t09_run(&s, &N, o, err);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "decreases of the stored second moment v in %llu Adam steps "
                          "(beta2 0.999, bf16-rn, gradient = noise of sd 1) x seeds 1-%llu (%llu "
                          "rises); predicted 0",
                          (unsigned long long)T09_STEPS, (unsigned long long)N,
                          (unsigned long long)s.rises);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)s.falls, (double)s.falls, (double)s.falls,
                        0.0);
    return SRL_OK;
}

int srl__chk_moment_rise(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                         srl_err *err)
{
    uint64_t N;
    vtrack s;
    const int st = t09_run(&s, &N, o, err);
    if (st)
        return st;
    srl__chk_result_begin(out, row->check.id,
                          "steps whose rise/no-rise of v contradicts g^2 > r(v) v, "
                          "r(v) = 1 + ulp(v)/(2 (1 - beta2) v), of %llu judged (%llu rises; %llu "
                          "within the binary32 margin, not judged), runs as T09a; predicted 0",
                          (unsigned long long)s.judged, (unsigned long long)s.rises,
                          (unsigned long long)s.near);
    srl__chk_result_set(out, SRL_CHECK_EXACT, (double)s.bad, (double)s.bad, (double)s.bad, 0.0);
    return SRL_OK;
}
