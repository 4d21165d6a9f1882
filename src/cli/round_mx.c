/* src/cli/round_mx.c: `srlab round -f mxfp4 ...`: the teaching view and the --batch CSV of a
 * block format (include/srlab/mx.h, docs/mx.md). The numbers given (or the data lines) are
 * cut into blocks of the format's size in order, the last one possibly partial; number (line) k
 * uses draw k of stream 0, as srl_mx_quantize of the whole list would. Every value shown comes
 * from srl_mx_explain; this file lays them out. */
#include "cli/round_mx.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/teach.h"

static const char *const cmd = "round";

/* One block's results: its scale and each element's rounding. */
static int explain_block(srl_mx_scale *s, srl_round_info *in, const double *x, size_t n,
                         uint64_t first, double ts, const cli_batch *c)
{
    srl_rng r;
    srl_rng_init(&r, c->kind, c->seed, 0);
    if (c->stoch)
        srl_rng_seek(&r, first);
    if (srl_mx_explain(s, in, x, n, ts, &c->mx, c->rule, c->m, &r) != SRL_OK)
        return cli_sys_error(cmd, "internal error: srl_mx_explain failed");
    return 0;
}

static void describe(FILE *o, const cli_batch *c)
{
    const srl_mx_format *f = &c->mx;
    char a[CLI_NUM_LEN];
    fprintf(o, "format    %s: blocks of %d %s elements (p=%d, emax=%d, largest %s, %s), ",
            f->name, f->block, f->elem_name, f->elem.p, f->elem.emax,
            cli_fmt_short(a, f->elem.xmax), "saturating");
    if (f->scale == SRL_MX_E8M0)
        fputs("one E8M0 scale 2^k per block\n", o);
    else
        fputs("one E4M3 scale s_b per block times a binary32 tensor scale s_t\n", o);
    fprintf(o, "rounding  %s: %s\n", c->mode, teach_mode_description(c->m));
    static const char *const why[] = {
        "k = floor(log2 amax) - emax (OCP); an element above the largest times 2^k clips",
        "the OCP k, the block times 3/4 first: nothing clips; results estimate 3/4 x",
        "the smallest k with amax <= largest 2^k: nothing clips"};
    static const char *const why_nv[] = {
        "s_b = amax / (6 s_t) to nearest in E4M3", "s_b = amax / (4.5 s_t) to nearest in E4M3: "
        "nothing clips", "s_b = amax / (6 s_t) rounded up in E4M3: nothing clips"};
    fprintf(o, "scale     %s: %s\n", srl_mx_rule_name(c->rule),
            (f->scale == SRL_MX_E8M0 ? why : why_nv)[c->rule]);
}

static void scale_line(FILE *o, const cli_batch *c, const srl_mx_scale *s, size_t blk,
                       double amax, double ts)
{
    char a[CLI_NUM_LEN], v[CLI_NUM_LEN], t[CLI_NUM_LEN];
    fprintf(o, "\nblock %zu: amax %s; ", blk, cli_fmt_short(a, amax));
    if (s->nan)
        fprintf(o, "a NaN or an infinity: scale NaN (code 0x%02X), every element NaN\n", s->code);
    else if (c->mx.scale == SRL_MX_E8M0)
        fprintf(o, "scale 2^%d = %s (E8M0 code 0x%02X)\n", s->k, cli_fmt_short(v, s->value),
                s->code);
    else
        fprintf(o, "s_b %s (E4M3 code 0x%02X), s_t %s, scale s_b s_t = %s\n",
                cli_fmt_short(v, s->sb), s->code, cli_fmt_short(t, ts),
                cli_fmt_short(a, s->value));
}

static void element_row(FILE *o, const cli_batch *c, const srl_mx_scale *s,
                        const srl_round_info *in, uint64_t i)
{
    fprintf(o, "  %4" PRIu64 "  %-13.6g %-13.6g %-13.6g %-8.4g %-13.6g", i, in->x, in->rd, in->ru,
            in->p_up, in->result);
    uint8_t code;
    if (!s->nan && s->value > 0 &&
        srl_mx_element_code(&code, &c->mx, in->result / s->value) == SRL_OK)
        fprintf(o, " 0x%02X", code);
    else
        fputs("  -  ", o);
    const double g = srl_mx_gain(&c->mx, c->rule);
    if (!s->nan && isfinite(in->x) && fabs(in->x) * g > c->mx.elem.xmax * s->value)
        fputs("  clips", o);
    fputc('\n', o);
}

static double amax_of(const double *x, size_t n)
{
    double a = 0;
    for (size_t i = 0; i < n; i++)
        a = fabs(x[i]) > a || isnan(x[i]) ? fabs(x[i]) : a;
    return a;
}

int round_mx_view(FILE *o, const cli_batch *c, const double *xs, int n)
{
    describe(o, c);
    cli_batch_print_seed(o, c, "number k (from 0) uses draw k of stream 0");
    const double ts = srl_mx_tensor_scale(xs, (size_t)n, &c->mx, c->rule);
    const size_t bs = (size_t)c->mx.block;
    srl_round_info *in = malloc(bs * sizeof *in);
    if (!in)
        return cli_sys_error(cmd, "out of memory");
    int rc = 0;
    for (size_t b = 0; !rc && b * bs < (size_t)n; b++) {
        const size_t i0 = b * bs, len = (size_t)n - i0 < bs ? (size_t)n - i0 : bs;
        srl_mx_scale s;
        if ((rc = explain_block(&s, in, xs + i0, len, i0, ts, c)))
            break;
        scale_line(o, c, &s, b, amax_of(xs + i0, len), ts);
        fprintf(o, "  %4s  %-13s %-13s %-13s %-8s %-13s %s\n", "i", "x", "rd", "ru", "p_up",
                "result", "code");
        for (size_t j = 0; j < len; j++)
            element_row(o, c, &s, &in[j], i0 + j);
    }
    free(in);
    return rc;
}

/* ---- --batch: every line read first (NVFP4's tensor scale is over the whole input), then the
 * blocks ---- */

void round_mx_batch_init(round_mx_batch *t)
{
    memset(t, 0, sizeof *t);
}

void round_mx_batch_free(round_mx_batch *t)
{
    free(t->x);
    t->x = NULL;
}

int round_mx_batch_row(FILE *o, const cli_batch *c, char *text, const char *what, srl_rng *r,
                       void *ctx)
{
    (void)o, (void)c, (void)r;
    round_mx_batch *t = ctx;
    double x;
    int rc = cli_parse_number(cmd, what, text, &x);
    if (rc)
        return rc;
    if (t->n == t->cap) {
        const size_t cap = t->cap ? 2 * t->cap : 1024;
        double *nx = realloc(t->x, cap * sizeof *nx);
        if (!nx)
            return cli_sys_error(cmd, "out of memory");
        t->x = nx, t->cap = cap;
    }
    t->x[t->n++] = x;
    return 0;
}

int round_mx_batch_end(FILE *o, const cli_batch *c, void *ctx)
{
    round_mx_batch *t = ctx;
    const double ts = srl_mx_tensor_scale(t->x, t->n, &c->mx, c->rule);
    const size_t bs = (size_t)c->mx.block;
    srl_round_info *in = malloc(bs * sizeof *in);
    if (!in)
        return cli_sys_error(cmd, "out of memory");
    int rc = 0;
    for (size_t b = 0; !rc && b * bs < t->n; b++) {
        const size_t i0 = b * bs, len = t->n - i0 < bs ? t->n - i0 : bs;
        srl_mx_scale s;
        rc = explain_block(&s, in, t->x + i0, len, i0, ts, c);
        for (size_t j = 0; !rc && j < len; j++) {
            char h[5][CLI_NUM_LEN], p[CLI_NUM_LEN];
            fprintf(o, "%s,", cli_fmt_hex(h[0], t->x[i0 + j]));
            cli_csv_field(o, c->mx.name);
            fprintf(o, ",%s,%s,%zu,0x%02X,%s,%s,%s,%s,%s\n", c->mode, srl_mx_rule_name(c->rule),
                    b, s.code, cli_fmt_hex(h[1], s.value), cli_fmt_hex(h[2], in[j].rd),
                    cli_fmt_hex(h[3], in[j].ru), cli_fmt_g17(p, in[j].p_up),
                    cli_fmt_hex(h[4], in[j].result));
        }
    }
    free(in);
    return rc;
}
