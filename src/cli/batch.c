/* src/cli/batch.c: the options, checks, seed lines, --samples report and --batch loop that
 * `srlab round` and `srlab op` share (src/cli/batch.h). */
#include "cli/batch.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/teach.h"
#include "srlab/common.h"

#define DEFAULT_SEED 1
#define CONFIDENCE 0.95

/* ---- options ---- */

int cli_batch_parse(cli_batch *b, const char *cmd, uint64_t max_samples, int argc, char **argv)
{
    enum { O_FORMAT, O_ROUNDING, O_SAMPLES, O_SEED, O_RNG, O_BATCH, O_OUTPUT, O_COMMENTS, O_QUIET,
           O_COMPACT, O_SCALE };
    static const cli_opt opts[] = {
        [O_FORMAT] = {"format", 'f', "FMT"},   [O_ROUNDING] = {"rounding", 'r', "MODE"},
        [O_SAMPLES] = {"samples", 0, "N"},     [O_SEED] = {"seed", 0, "S"},
        [O_RNG] = {"rng", 0, "pcg32|pcg64"},   [O_BATCH] = {"batch", 0, NULL},
        [O_OUTPUT] = {"output", 'o', "FILE"},  [O_COMMENTS] = {"comments", 0, NULL},
        [O_QUIET] = {"quiet", 0, NULL},        [O_COMPACT] = {"compact", 0, NULL},
        [O_SCALE] = {"scale", 0, "RULE"},      {NULL, 0, NULL},
    };
    memset(b, 0, sizeof *b);
    b->cmd = cmd;
    b->f = *srl_format_find("bf16");
    b->m = SRL_ROUND_RN;
    b->seed = DEFAULT_SEED;
    b->kind = SRL_RNG_DEFAULT;
    if (!(b->pos = malloc(((size_t)argc + 1) * sizeof *b->pos)))
        return cli_sys_error(cmd, "out of memory");
    int k, rc = 0;
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: return CLI_BATCH_HELP;
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL: b->pos[b->npos++] = (char *)a.val; break;
        case O_FORMAT:
            b->is_mx = srl_mx_is_name(a.val);
            rc = b->is_mx ? cli_parse_mx(cmd, a.opt, a.val, &b->mx)
                          : cli_parse_format(cmd, a.opt, a.val, &b->f);
            if (!rc && b->is_mx)
                b->f = b->mx.elem;
            break;
        case O_SCALE:
            rc = cli_parse_mx_rule(cmd, a.opt, a.val, &b->rule);
            snprintf(b->scale_opt, sizeof b->scale_opt, "%s", a.opt);
            break;
        case O_ROUNDING: rc = cli_parse_rounding(cmd, a.opt, a.val, &b->m); break;
        case O_SAMPLES: rc = cli_parse_count(cmd, a.opt, a.val, 1, max_samples, &b->samples); break;
        case O_SEED: rc = cli_parse_seed(cmd, a.opt, a.val, &b->seed); break;
        case O_RNG: rc = cli_parse_rng_kind(cmd, a.opt, a.val, &b->kind); break;
        case O_BATCH: b->batch = true; break;
        case O_OUTPUT:
            b->path = a.val;
            snprintf(b->out_opt, sizeof b->out_opt, "%s", a.opt);
            snprintf(b->only_batch, sizeof b->only_batch, "%s", a.opt);
            break;
        case O_COMMENTS:
            b->comments = true;
            snprintf(b->only_batch, sizeof b->only_batch, "%s", a.opt);
            break;
        case O_COMPACT: b->compact = true; break;
        case O_QUIET:
            b->quiet = true;
            snprintf(b->only_batch, sizeof b->only_batch, "%s", a.opt);
            break;
        }
    }
    b->stoch = srl_rounding_is_stochastic(b->m);
    srl_rounding_name(b->mode, sizeof b->mode, b->m);
    return rc;
}

void cli_batch_free(cli_batch *b)
{
    free(b->pos);
    b->pos = NULL;
    b->npos = 0;
}

int cli_batch_check(const cli_batch *b, const char *inputs, int ninputs)
{
    if (b->batch && ninputs)
        return cli_error(b->cmd, "%s on the command line and --batch exclude each other", inputs);
    if (b->batch && b->samples)
        return cli_error(b->cmd, "--samples does not apply to --batch");
    if (b->batch && b->compact)
        return cli_error(b->cmd, "--compact is a form of the teaching view: not with --batch");
    if (!b->batch && b->only_batch[0])
        return cli_error(b->cmd, "%s applies only to --batch", b->only_batch);
    if (b->scale_opt[0] && !b->is_mx)
        return cli_error(b->cmd, "%s applies only to a block format (-f mxfp8, mxfp4, nvfp4, ...)",
                         b->scale_opt);
    if (b->is_mx && strcmp(b->cmd, "round") != 0)
        return cli_error(b->cmd, "block format %s: only 'srlab round' quantizes blocks",
                         b->mx.name);
    if (b->is_mx && (b->samples || b->compact))
        return cli_error(b->cmd, "%s does not apply to a block format (%s)",
                         b->samples ? "--samples" : "--compact", b->mx.name);
    return 0;
}

/* ---- the teaching view ---- */

int cli_batch_view(const cli_batch *b, cli_batch_view_fn write, void *ctx)
{
    cli_out out;
    int rc = cli_out_open(&out, b->cmd, NULL, NULL);
    if (rc)
        return rc;
    if ((rc = write(out.fp, b, ctx))) {
        cli_out_abort(&out);
        return rc;
    }
    return cli_out_commit(&out);
}

void cli_batch_print_mode(FILE *o, const cli_batch *b)
{
    if (b->compact) {
        char u[CLI_NUM_LEN];
        fprintf(o, "%s (p=%d, u=%s), %s", b->f.name, b->f.p, teach_pow2_name(u, b->f.u), b->mode);
        if (b->stoch || b->samples)
            fprintf(o, ", seed %" PRIu64 " (%s)", b->seed, cli_rng_kind_name(b->kind));
        fputc('\n', o);
        return;
    }
    teach_describe_format(o, &b->f);
    fprintf(o, "rounding  %s: %s\n", b->mode, teach_mode_description(b->m));
}

/* "S (KIND); USES" and, for a mode that draws nothing, a note saying so. */
static void seed_text(FILE *o, const cli_batch *b, const char *uses)
{
    fprintf(o, "%" PRIu64 " (%s); %s%s\n", b->seed, cli_rng_kind_name(b->kind), uses,
            b->stoch ? "" : " (this mode draws nothing)");
}

void cli_batch_print_seed(FILE *o, const cli_batch *b, const char *uses)
{
    if (b->compact) /* in the mode line */
        return;
    if (!b->stoch && !b->samples)
        return;
    fputs("seed      ", o);
    seed_text(o, b, uses);
}

/* ---- --samples ---- */

void cli_batch_samples_stream(const cli_batch *b, srl_rng *s)
{
    char key[64];
    snprintf(key, sizeof key, "%s --samples", b->cmd);
    srl_rng base;
    srl_rng_init(&base, b->kind, b->seed, 0);
    srl_rng_derive(s, &base, srl_hash_str(key));
}

void cli_batch_tally_add(cli_batch_tally *t, double y)
{
    if (teach_same_value(y, t->ru))
        t->nup++;
    else if (!teach_same_value(y, t->rd))
        t->nother++;
}

/* The "mean" line: the sample mean against the mode's E[result], in ulps of the value. */
static void print_mean(FILE *o, const cli_batch_tally *t, double freq, double lo, double hi)
{
    char a[CLI_NUM_LEN];
    if (!isfinite(t->rd) || !isfinite(t->ru) || !t->finite) {
        fprintf(o, "  mean      not finite: %s is %s, so the results' mean is not a number to "
                   "compare with %s\n", isfinite(t->rd) ? "ru" : "rd",
                cli_fmt_short(a, isfinite(t->rd) ? t->ru : t->rd), t->sym);
        return;
    }
    /* mean - value = freq - F in ulps; the mean's interval is the frequency's, shifted; the
     * mode's own E[result] - value is p_up - F. */
    const double F = t->F, bias = t->p_up - F;
    const bool m_in = lo - F <= bias && bias <= hi - F;
    char bs[CLI_NUM_LEN];
    if (bias == 0)
        snprintf(bs, sizeof bs, "0 ulp (unbiased)");
    else
        snprintf(bs, sizeof bs, "%+.6g ulp (biased)", bias);
    fprintf(o, "  mean      %s: mean - %s = %+.6g ulp; 95%% interval [%+.6g, %+.6g] ulp; the "
               "mode's E[result] - %s = %s: %s\n",
            cli_fmt_g17(a, t->rd + t->ulp * freq), t->sym, freq - F, lo - F, hi - F, t->sym, bs,
            m_in ? "consistent" : "INCONSISTENT");
}

/* --samples in two short lines: the count of ru, its 95% Clopper-Pearson interval and whether
 * it holds p_up. */
static void print_samples_compact(FILE *o, const cli_batch *b, const cli_batch_tally *t)
{
    const uint64_t N = b->samples;
    if (teach_same_value(t->rd, t->ru)) {
        fprintf(o, "  %" PRIu64 " samples: nothing random (rd = ru)\n", N);
        return;
    }
    double lo, hi;
    teach_clopper_pearson(t->nup, N, CONFIDENCE, &lo, &hi);
    fprintf(o, "  %" PRIu64 " samples: up %" PRIu64 " (frequency %.4g)\n"
               "  95%% CI [%.4g, %.4g] against p_up: %s\n",
            N, t->nup, (double)t->nup / (double)N, lo, hi,
            t->nother ? "a result neither rd nor ru (a library bug)"
            : lo <= t->p_up && t->p_up <= hi ? "consistent"
                                             : "INCONSISTENT");
}

void cli_batch_print_samples(FILE *o, const cli_batch *b, const cli_batch_tally *t)
{
    const uint64_t N = b->samples;
    char a[CLI_NUM_LEN];
    if (b->compact) {
        print_samples_compact(o, b, t);
        return;
    }
    fprintf(o, "  samples   %" PRIu64 " %s with draws %" PRIu64 "..%" PRIu64 " of the stream "
               "derived from seed %" PRIu64 " with key \"%s --samples\" (%s)\n",
            N, t->what, t->first, t->first + N - 1, b->seed, b->cmd, cli_rng_kind_name(b->kind));
    if (t->nother)
        fprintf(o, "  WARNING   %" PRIu64 " results were neither rd nor ru: a library bug\n",
                t->nother);
    if (teach_same_value(t->rd, t->ru)) {
        fprintf(o, "  up        none: all %" PRIu64 " results are %s (rd = ru: nothing random)\n",
                t->nup, cli_fmt_short(a, t->ru));
        return;
    }
    double lo, hi;
    teach_clopper_pearson(t->nup, N, CONFIDENCE, &lo, &hi);
    const double freq = (double)t->nup / (double)N;
    const bool p_in = lo <= t->p_up && t->p_up <= hi;
    fprintf(o, "  up        %" PRIu64 " of %" PRIu64 " (frequency %.6g); expected p_up = %s; 95%% "
               "Clopper-Pearson interval [%.6g, %.6g]: %s\n",
            t->nup, N, freq, cli_fmt_short(a, t->p_up), lo, hi,
            p_in ? "consistent"
                 : "INCONSISTENT (a 95% interval misses 1 time in 20; try another --seed)");
    print_mean(o, t, freq, lo, hi);
}

/* ---- --batch ---- */

int cli_batch_run(const cli_batch *b, const char *header, cli_batch_row_fn row,
                  cli_batch_end_fn end, void *ctx, bool count_lines, int argc, char **argv)
{
    /* standard input is an input like any file: `-o f < f` would replace what is being read */
    struct stat in;
    if (fstat(0, &in) == 0 && S_ISREG(in.st_mode))
        cli_input_note("standard input", &in);
    cli_out out;
    int rc = cli_out_open(&out, b->cmd, b->out_opt, b->path);
    if (rc)
        return rc;
    FILE *o = out.fp;
    if (b->comments) {
        fprintf(o, "# srlab %s\n# command: ", srl_version());
        cli_fprint_command(o, argc, argv);
        fputs("\n# seed: ", o);
        seed_text(o, b, "data line k (from 0) uses draw k of stream 0");
    }
    fprintf(o, "%s\n", header);
    srl_rng r;
    srl_rng_init(&r, b->kind, b->seed, 0);
    teach_lines lines = {stdin, NULL, 0, 0, ""};
    uint64_t k = 0;
    char *text;
    int got;
    while ((got = teach_next_line(&lines, b->cmd, &text)) == TEACH_LINE) {
        if (b->stoch && r.counter != k)
            srl_rng_seek(&r, k);
        if ((rc = row(o, b, text, lines.what, &r, ctx)))
            break;
        k++;
    }
    if (!rc && got != TEACH_EOF)
        rc = got; /* a bad line or a read error: the message is out */
    if (!rc && end)
        rc = end(o, b, ctx);
    free(lines.line);
    if (rc) {
        cli_out_abort(&out);
        return rc;
    }
    if ((rc = cli_out_commit(&out)))
        return rc;
    if (b->stoch && !b->quiet) {
        char count[48] = "";
        if (count_lines)
            snprintf(count, sizeof count, " (%" PRIu64 " lines)", k);
        fprintf(stderr, "srlab %s: seed %" PRIu64 " (%s): data line k used draw k of stream 0%s\n",
                b->cmd, b->seed, cli_rng_kind_name(b->kind), count);
    }
    return 0;
}
