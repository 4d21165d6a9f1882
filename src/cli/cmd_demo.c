/* src/cli/cmd_demo.c: `srlab demo [NAME]`: short terminal demonstrations for teaching.
 *
 * Each demo prints, step by step, what happens to the numbers and why, using only the library's
 * exact operations and rounding (srl_op_apply, srl_round), and ends with the srlab command that
 * makes its figure. Randomness: seed 1 unless --seed is given, echoed. Knobs: the format (-f),
 * the size (--n), the term (accumulate) and the learning rate (gd, replicas); a knob a demo does
 * not have is refused. --plot draws the demo's picture: the demo writes its points into a data
 * block, and gnuplot runs a script holding that block and the demo's plot commands in a private
 * folder (src/cli/gnuplot.h), drawing into a fixed name there that is then checked and copied to
 * FILE; --table writes the same points as gnuplot plots them ('set table'), which is what the
 * tests read. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "cli/progress.h"
#include "cli/host.h"
#include "srlab/ops.h"
#include "srlab/rounding.h"
#include "srlab/theory.h"

static const char help_text[] =
    "usage: srlab demo [NAME] [-f FMT] [--n N] [--term T] [--lr LR] [--seed S]\n"
    "                         [--plot FILE] [--table FILE]\n"
    "\n"
    "Short demonstrations of rounding, printed step by step:\n"
    "  accumulate  1.0 + 0.001 added a thousand times in bf16 under rn and sr, and where\n"
    "              one sr run lies among 200 (knobs -f, --term, --n)\n"
    "  harmonic    the harmonic series stagnating in bf16 under rn, growing under sr\n"
    "              (knobs -f, --n)\n"
    "  gd          gradient descent freezing under rn and creeping under sr at a small\n"
    "              learning rate (bf16 weights; knobs -f, --lr, --n)\n"
    "  replicas    three data-parallel replicas: two with shared SR draws stay identical,\n"
    "              the third, with its own, drifts apart (knobs -f, --lr, --n)\n"
    "  crossover   noisy SGD at 15 learning rates: rn dithers, then freezes; sr never\n"
    "              freezes; where sr wins, measured beside theory/T14 (knobs -f, --n)\n"
    "'srlab demo' alone lists them.\n"
    "\n"
    "options (a knob a demo does not have is refused):\n"
    "  -f, --format FMT  the low-precision format (default bf16; any srlab format)\n"
    "  --n N             accumulate: additions (default 1000, at most 100000); harmonic: terms\n"
    "                    (default 10000, at most 10^7); gd, replicas: steps (default 2000 and\n"
    "                    1000, at most 10^6 and 10^5); crossover: steps (default 10000, at\n"
    "                    most 10^5)\n"
    "  --term T          accumulate: the term added, rounded once into FMT (default 0.001)\n"
    "  --lr LR           gd, replicas: the learning rate (default 0.01)\n"
    "  --seed S          seed of the sr draws (default 1, as in every srlab command), echoed\n"
    "  --plot FILE       also draw the demo's picture with gnuplot into FILE (.png, .svg or .pdf)\n"
    "  --table FILE      also write the points of that picture as gnuplot plots them (its\n"
    "                    'set table' output: one block per curve, x y columns)\n"
    "\n"
    "examples:\n"
    "  srlab demo accumulate\n"
    "  srlab demo accumulate --term 1e-4 -f fp16 --n 5000\n"
    "  srlab demo harmonic --plot harmonic.png\n"
    "  srlab demo gd --lr 0.003 --seed 7\n";

/* What a demo is run with: the options, defaults filled in. */
typedef struct demo_args {
    srl_format f;
    double term, lr;
    uint64_t n, seed;
    const char *plot; /* --plot FILE, or NULL */
} demo_args;

/* ---- small helpers ---- */

static srl_rounding mode_of(srl_mode m)
{
    srl_rounding r = {m, 0};
    return r;
}

static const char *num(char *buf, double x)
{
    return cli_fmt_short(buf, x);
}

/* Where the demo's picture is: the file --plot drew, or how to draw it. */
static void picture_line(FILE *o, const demo_args *a, const char *name)
{
    if (a->plot)
        fprintf(o, "\nThe picture: %s\n", a->plot);
    else
        fprintf(o, "\nThe picture of this demo: the same command with --plot %s.png\n", name);
}

/* A small table of text cells, each column as wide as its widest cell (numbers printed
 * exactly can be long), the first column right-aligned. Row 0 is the header. */
#define TAB_COLS 6
#define TAB_ROWS 12
typedef struct text_table {
    size_t ncol, nrow;
    char cell[TAB_ROWS][TAB_COLS][CLI_NUM_LEN];
} text_table;

/* Add a row of t->ncol cells (a row beyond TAB_ROWS is dropped: the tables have at most 8). */
static void tab_row(text_table *t, const char *const *cells)
{
    if (t->nrow >= TAB_ROWS)
        return;
    for (size_t c = 0; c < t->ncol; c++)
        snprintf(t->cell[t->nrow][c], CLI_NUM_LEN, "%s", cells[c]);
    t->nrow++;
}

static void tab_print(FILE *o, const text_table *t, const char *indent)
{
    int w[TAB_COLS] = {0};
    for (size_t r = 0; r < t->nrow; r++)
        for (size_t c = 0; c < t->ncol; c++)
            if ((int)strlen(t->cell[r][c]) > w[c])
                w[c] = (int)strlen(t->cell[r][c]);
    for (size_t r = 0; r < t->nrow; r++) {
        fprintf(o, "%s%*s", indent, w[0], t->cell[r][0]);
        for (size_t c = 1; c < t->ncol; c++)
            if (c + 1 < t->ncol)
                fprintf(o, "  %-*s", w[c], t->cell[r][c]);
            else
                fprintf(o, "  %s", t->cell[r][c]);
        fputc('\n', o);
    }
}

/* s <- round(s + t) in f with mode m (one exact addition, one rounding). */
static double add(double s, double t, const srl_format *f, srl_mode m, srl_rng *rng)
{
    return srl_op_apply(SRL_ADD, s, t, 0.0, f, mode_of(m), rng);
}

/* ---- accumulate ---- */

/* Is k one of the table rows of a run of n steps: 1, n/100, n/10, n/4, n/2, n? */
static bool table_row(uint64_t k, uint64_t n)
{
    return k == 1 || k == n || (n >= 100 && k == n / 100) || (n >= 10 && k == n / 10) ||
           (n >= 4 && k == n / 4) || (n >= 2 && k == n / 2);
}

/* 1 + t: where it lies between its neighbours in f, and what rn does with it. */
static void accumulate_first_step(FILE *o, const demo_args *a, double t)
{
    const srl_format *f = &a->f;
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN], b4[CLI_NUM_LEN];
    /* 1 + t exactly, rounded once (it need not be a binary64 number: t may be tiny) */
    const double lo = srl_op_apply(SRL_ADD, 1.0, t, 0.0, f, mode_of(SRL_RD), NULL);
    const double hi = srl_op_apply(SRL_ADD, 1.0, t, 0.0, f, mode_of(SRL_RU), NULL);
    const double rn = srl_op_apply(SRL_ADD, 1.0, t, 0.0, f, mode_of(SRL_RN), NULL);
    const char *eq = (1.0 + t) - 1.0 == t ? "=" : "~"; /* is 1 + t a binary64 number? */
    if (lo == hi) {
        fprintf(o, "2. The first addition. The exact sum 1 + t %s %s is a %s number: nothing\n"
                   "   to round, rn and sr agree while the sums stay exact.\n\n",
                eq, num(b1, 1.0 + t), f->name);
        return;
    }
    const double frac = ((1.0 - lo) + t) / (hi - lo); /* 1 - lo exact: 1 <= lo <= 2 */
    fprintf(o, "2. The first addition. The exact sum 1 + t %s %s lies between the\n"
               "   %s neighbours %s and %s, %s apart; it covers %.4g of that gap.\n",
            eq, num(b1, 1.0 + t), f->name, num(b2, lo), num(b3, hi), num(b4, hi - lo), frac);
    if (rn == 1.0)
        fprintf(o, "   rn: %.4g < 1/2, so 1 + t rounds back to 1. The next addition is the same\n"
                   "       computation, and so is every one after it: the sum is stuck at 1 for\n"
                   "       ever. This is stagnation: every update below half an ulp is lost.\n",
                frac);
    else
        fprintf(o, "   rn: rounds 1 + t to %s, %s %s than the exact sum: rn's error is the same\n"
                   "       at every addition while the ulp stays the same, so it adds up.\n",
                num(b1, rn), num(b2, fabs(rn - (1.0 + t))), rn > 1.0 + t ? "more" : "less");
    fprintf(o, "   sr: rounds up with probability %.4g (the fraction of the gap the exact sum\n"
               "       covers), down otherwise, so on average the sum moves by exactly t.\n\n",
            frac);
}

/* The runs of accumulate: step 3's one run and step 4's many; the figure: the exact sum, rn,
 * the run, and the runs' mean and mean +- 2 sd at up to 200 points. */
enum { RUNS = 200, POINTS = 200 };

typedef struct acc_state {
    const demo_args *a;
    double t;             /* the term, rounded into the format */
    uint64_t every;       /* a figure point every this many additions */
    size_t npts;          /* figure points */
    double *mean_k, *m2_k; /* the many runs' mean and sum of squared deviations at each point */
    double *finals;       /* the many runs' final sums */
    double s_rn, s_sr;    /* the final sums of rn and of step 3's sr run */
} acc_state;

/* The heading and step 1: the term, and whether it is a number of the format. */
static void accumulate_intro(FILE *o, const demo_args *a, double t)
{
    const srl_format *f = &a->f;
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN];
    fprintf(o, "Adding %s to 1.0 %" PRIu64 " times in %s (p = %d significant bits, u = 2^-%d).\n"
               "seed %" PRIu64 " (pcg32)\n\n",
            num(b1, a->term), a->n, f->name, f->p, f->p, a->seed);
    if (t == a->term)
        fprintf(o, "1. The term. %s is a %s number: t = %s.\n", num(b1, a->term), f->name,
                cli_fmt_hexn(b2, t));
    else
        fprintf(o, "1. The term. %s is not a %s number; the nearest one is t = %s (%s).\n",
                num(b1, a->term), f->name, num(b2, t), cli_fmt_hexn(b3, t));
}

/* Step 3: rn and one sr run side by side (its table, and the first block of the figure). */
static void accumulate_one_run(FILE *o, acc_state *S, FILE *dat)
{
    const srl_format *f = &S->a->f;
    const uint64_t n = S->a->n;
    const double t = S->t;
    char b0[CLI_NUM_LEN], b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN];
    fprintf(o, "3. One sr run (stream 0 of the seed; exact = 1 + k t):\n");
    text_table tb = {.ncol = 4};
    tab_row(&tb, (const char *const[]){"k", "rn", "sr", "exact"});
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, S->a->seed, 0);
    double s_rn = 1.0, s_sr = 1.0;
    if (dat)
        fprintf(dat, "# k exact rn sr mean lo hi\n");
    for (uint64_t k = 1; k <= n; k++) {
        s_rn = add(s_rn, t, f, SRL_RN, NULL);
        s_sr = add(s_sr, t, f, SRL_SR, &rng);
        if (table_row(k, n)) {
            snprintf(b0, sizeof b0, "%" PRIu64, k);
            tab_row(&tb, (const char *const[]){b0, num(b1, s_rn), num(b2, s_sr),
                                               num(b3, 1.0 + (double)k * t)});
        }
        if (dat && k % S->every == 0)
            fprintf(dat, "%" PRIu64 " %.17g %.17g %.17g\n", k, 1.0 + (double)k * t, s_rn, s_sr);
    }
    tab_print(o, &tb, "  ");
    S->s_rn = s_rn;
    S->s_sr = s_sr;
}

/* Many independent runs (streams 1000, 1001, ...): their final sums, and their running mean and
 * spread at the figure's points. */
static void accumulate_many_runs(acc_state *S)
{
    const uint64_t n = S->a->n, every = S->every;
    for (int r = 0; r < RUNS; r++) {
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_DEFAULT, S->a->seed, 1000 + (uint64_t)r);
        double s = 1.0;
        for (uint64_t k = 1; k <= n; k++) {
            s = add(s, S->t, &S->a->f, SRL_SR, &g);
            if (k % every == 0 && k / every < S->npts) {
                const size_t i = (size_t)(k / every);
                const double d = s - S->mean_k[i];
                S->mean_k[i] += d / (r + 1);
                S->m2_k[i] += d * (s - S->mean_k[i]);
            }
        }
        S->finals[r] = s;
    }
}

/* Step 4: the many runs' mean and spread, and where step 3's run lies among them. */
static void accumulate_report(FILE *o, const acc_state *S)
{
    const double *finals = S->finals, s_sr = S->s_sr, s_rn = S->s_rn;
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN];
    double mean = 0, m2 = 0;
    for (int r = 0; r < RUNS; r++) {
        const double d = finals[r] - mean;
        mean += d / (r + 1);
        m2 += d * (finals[r] - mean);
    }
    const double sd = sqrt(m2 / (RUNS - 1)), se = sd / sqrt((double)RUNS);
    const double exact = 1.0 + (double)S->a->n * S->t;
    int further = 0; /* runs whose final sum is further from the exact one than run 3's */
    double lo = finals[0], hi = finals[0];
    for (int r = 0; r < RUNS; r++) {
        further += fabs(finals[r] - exact) > fabs(s_sr - exact);
        lo = finals[r] < lo ? finals[r] : lo;
        hi = finals[r] > hi ? finals[r] : hi;
    }
    const double ulp_end = srl_format_ulp(&S->a->f, exact);
    fprintf(o, "\n4. %d more sr runs (streams 1000 to %d of the seed) end between %s and %s.\n"
               "   Their mean is %.6g (standard deviation %.4g = %.3g ulp at the exact sum,\n"
               "   standard error %.3g) against the exact %.6g: the mean is off by %.2f\n"
               "   standard errors. sr is unbiased (theory/T01: E[sr(x)] = x); one run is not\n"
               "   the mean: it scatters around it by about one standard deviation.\n",
            RUNS, 1000 + RUNS - 1, num(b1, lo), num(b2, hi), mean, sd, sd / ulp_end, se, exact,
            se > 0 ? fabs(mean - exact) / se : 0.0);
    const double z = sd > 0 ? (s_sr - mean) / sd : 0.0;
    fprintf(o, "   The run of step 3 ends at %s, %+.2f standard deviations from that mean;\n"
               "   %d of the %d runs end further from the exact sum than it: %s.\n",
            num(b1, s_sr), z, further, RUNS,
            fabs(z) > 2 ? "an unusual run\n   (about 1 run in 20 lies beyond 2 standard deviations)"
                        : "an ordinary run");
    fprintf(o, "   rn ends at %s, off by %s: all of it bias, the same in every run.\n",
            num(b1, s_rn), num(b2, exact - s_rn));
}

/* The figure's second block: the many runs' mean, mean - 2 sd, mean + 2 sd. */
static void accumulate_write_band(FILE *dat, const acc_state *S)
{
    fputs("\n\n# k mean lo hi (the runs of step 4: mean, mean - 2 sd, mean + 2 sd)\n", dat);
    for (size_t i = 1; i < S->npts; i++) {
        const double sdk = sqrt(S->m2_k[i] / (RUNS - 1));
        fprintf(dat, "%" PRIu64 " %.17g %.17g %.17g\n", (uint64_t)i * S->every, S->mean_k[i],
                S->mean_k[i] - 2 * sdk, S->mean_k[i] + 2 * sdk);
    }
}

static int demo_accumulate(FILE *o, const demo_args *a, FILE *dat)
{
    const srl_format *f = &a->f;
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN];
    const uint64_t n = a->n;
    const double t = srl_round(a->term, f, mode_of(SRL_RN), NULL);
    if (!isfinite(t) || !isfinite(srl_round(1.0 + (double)n * t, f, mode_of(SRL_RU), NULL)))
        return cli_error("demo", "--term: %s times %s overflows %s (largest %s)",
                         num(b1, a->term), num(b2, (double)n), f->name, num(b3, f->xmax));
    accumulate_intro(o, a, t);
    accumulate_first_step(o, a, t);
    acc_state S = {.a = a, .t = t};
    S.every = n > POINTS ? n / POINTS : 1;
    S.npts = (size_t)(n / S.every) + 1;
    S.mean_k = calloc(S.npts, sizeof *S.mean_k);
    S.m2_k = calloc(S.npts, sizeof *S.m2_k);
    S.finals = malloc(RUNS * sizeof *S.finals);
    if (!S.mean_k || !S.m2_k || !S.finals) {
        free(S.mean_k), free(S.m2_k), free(S.finals);
        return cli_sys_error("demo", "out of memory");
    }
    accumulate_one_run(o, &S, dat);
    accumulate_many_runs(&S);
    accumulate_report(o, &S);
    if (dat)
        accumulate_write_band(dat, &S);
    free(S.mean_k), free(S.m2_k), free(S.finals);
    picture_line(o, S.a, "accumulate");
    fprintf(o, "The figure (summation error against n, with the n u and sqrt(n) u bounds):\n"
               "  srlab sweep experiments/summation.ini --quick -o sum.csv\n"
               "  srlab plot sum_error --in sum.csv -o sum.png\n");
    return 0;
}

static const char accumulate_gp[] =
    "set title sprintf('t added k times to 1 in %s', fmt_name)\n"
    "set xlabel 'k (additions)'\n"
    "set ylabel 'sum'\n"
    "set key top left\n"
    "plot $data index 1 using 1:3:4 with filledcurves lc rgb '#c6dbef' title 'sr: mean +- 2 sd of 200 runs', \\\n"
    "     $data index 0 using 1:2 with lines lw 2 lc rgb 'black' title 'exact', \\\n"
    "     $data index 0 using 1:3 with lines lw 2 lc rgb '#d62728' title 'rn', \\\n"
    "     $data index 0 using 1:4 with lines lw 1 lc rgb '#1f77b4' title 'sr: one run (seed)'\n";

/* ---- harmonic ---- */

/* The curves of columns 2 (exact), 3 (rn) and 4 (one sr run) of $data, for a plot command. */
#define EXACT_RN_SR                                                                            \
    "$data using 1:2 with lines lw 2 lc rgb 'black' title 'exact', \\\n"                       \
    "     $data using 1:3 with lines lw 2 lc rgb '#d62728' title 'rn', \\\n"                   \
    "     $data using 1:4 with lines lw 1 lc rgb '#1f77b4' title 'sr (one run)'\n"

/* Is k a power of 10 (10, 100, ...)? */
static bool decade(uint64_t k)
{
    while (k >= 10 && k % 10 == 0)
        k /= 10;
    return k == 1;
}

static int demo_harmonic(FILE *o, const demo_args *a, FILE *dat)
{
    const srl_format *f = &a->f;
    char b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN], b4[CLI_NUM_LEN];
    const uint64_t n = a->n;
    fprintf(o, "The harmonic series 1 + 1/2 + 1/3 + ... (%" PRIu64 " terms) summed in %s (each\n"
               "1/k rounded once, each partial sum rounded once). The exact series diverges like\n"
               "ln n.\nseed %" PRIu64 " (pcg32)\n\n", n, f->name, a->seed);
    uint64_t stuck = 0;
    double s = 1.0;
    for (uint64_t k = 2; k <= n && !stuck; k++) {
        const double t = srl_op_apply(SRL_DIV, 1.0, (double)k, 0.0, f, mode_of(SRL_RN), NULL);
        const double s2 = add(s, t, f, SRL_RN, NULL);
        if (s2 == s) {
            const double u = srl_format_ulp(f, s);
            fprintf(o, "rn: at k = %" PRIu64 " the sum is %s, whose ulp is %s. The term 1/%" PRIu64
                       " = %s is\n    at most half of it (%s), so s + 1/%" PRIu64 " rounds back"
                       " to s. Every later\n    term is smaller still: the sum stays %s for"
                       " ever.\n",
                    k, num(b1, s), num(b2, u), k, num(b3, t), num(b4, u / 2), k, num(b1, s));
            stuck = k;
        }
        s = s2;
    }
    if (!stuck)
        fprintf(o, "rn: within %" PRIu64 " terms no term is lost yet (--n larger shows where the"
                   " sum stops).\n", n);
    fprintf(o, "\nsr: the same sum with stochastic rounding, against the exact partial sums:\n"
               "  %8s  %-12s  %-12s  %s\n", "k", "rn", "sr", "exact H_k");
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, a->seed, 0);
    double s_rn = 1.0, s_sr = 1.0, h = 1.0;
    double next_pt = 1.0; /* the figure: about 40 points a decade */
    if (dat)
        fprintf(dat, "# k exact rn sr\n1 1 1 1\n");
    for (uint64_t k = 2; k <= n; k++) {
        s_rn = add(s_rn, srl_op_apply(SRL_DIV, 1.0, (double)k, 0.0, f, mode_of(SRL_RN), NULL),
                   f, SRL_RN, NULL);
        s_sr = add(s_sr, srl_op_apply(SRL_DIV, 1.0, (double)k, 0.0, f, mode_of(SRL_SR), &rng),
                   f, SRL_SR, &rng);
        h += 1.0 / (double)k;
        if (decade(k) || k == stuck || k == n)
            fprintf(o, "  %8" PRIu64 "  %-12s  %-12s  %s\n", k, num(b1, s_rn), num(b2, s_sr),
                    num(b3, h));
        if (dat && ((double)k >= next_pt || k == n)) {
            fprintf(dat, "%" PRIu64 " %.17g %.17g %.17g\n", k, h, s_rn, s_sr);
            next_pt = (double)k * 1.06;
        }
    }
    fprintf(o, "\nUnder sr no term is ever lost for good: a term t moves the sum up with\n"
               "probability t/ulp, so the expected sum is the exact one (theory/T03).\n");
    picture_line(o, a, "harmonic");
    fprintf(o, "The figure (relative error of the partial sums, rn against sr):\n"
               "  srlab sweep experiments/harmonic.ini --quick -o harmonic.csv\n"
               "  srlab plot sum_error --in harmonic.csv --set where=format=bf16 -o harmonic.png\n");
    return 0;
}

static const char harmonic_gp[] =
    "set title sprintf('The harmonic series summed in %s', fmt_name)\n"
    "set logscale x\n"
    "set format x '10^{%T}'\n"
    "set xlabel 'k (terms)'\n"
    "set ylabel 'partial sum'\n"
    "set key top left\n"
    "plot " EXACT_RN_SR;

/* ---- gradient descent ---- */

static int demo_gd(FILE *o, const demo_args *a, FILE *dat)
{
    const srl_format *bf = &a->f;
    char b0[CLI_NUM_LEN], b1[CLI_NUM_LEN], b2[CLI_NUM_LEN], b3[CLI_NUM_LEN], b4[CLI_NUM_LEN],
        b5[CLI_NUM_LEN];
    const double A = 1.0, xstar = 1.3, x0 = 0.0, lr = a->lr;
    const long n = (long)a->n;
    fprintf(o, "Gradient descent on f(x) = a/2 (x - x*)^2 with a = %s, x* = %s, from x0 = %s,\n"
               "learning rate %s; the weight x is stored in %s, the update computed exactly\n"
               "and written with rn or sr: x <- round(x - lr a (x - x*)).\n"
               "seed %llu (pcg32)\n\n",
            num(b1, A), num(b2, xstar), num(b3, x0), num(b4, lr), bf->name,
            (unsigned long long)a->seed);
    srl_rng rng;
    srl_rng_init(&rng, SRL_RNG_DEFAULT, a->seed, 0);
    const double xs = srl_round(xstar, bf, mode_of(SRL_RN), NULL);
    double x_rn = x0, x_sr = x0, x_ex = x0;
    long frozen = -1;
    text_table tb = {.ncol = 6};
    tab_row(&tb, (const char *const[]){"step", "rn", "sr", "exact", "update (rn)", "ulp(x)/2 (rn)"});
    const long every = n > 400 ? n / 400 : 1;
    if (dat)
        fprintf(dat, "# step x: exact rn sr; x* rounded into the format\n");
    for (long k = 0; k <= n; k++) {
        const double upd = -lr * A * (x_rn - xs);
        const double hu = srl_format_ulp(bf, x_rn) / 2;
        if (k == 0 || table_row((uint64_t)k, (uint64_t)n)) {
            snprintf(b0, sizeof b0, "%ld", k);
            snprintf(b3, sizeof b3, "%.7g", x_ex);
            snprintf(b4, sizeof b4, "%.4g", upd);
            snprintf(b5, sizeof b5, "%.4g", hu);
            tab_row(&tb, (const char *const[]){b0, num(b1, x_rn), num(b2, x_sr), b3, b4, b5});
        }
        if (dat && (k % every == 0 || k == n))
            fprintf(dat, "%ld %.17g %.17g %.17g %.17g\n", k, x_ex, x_rn, x_sr, xs);
        double nx = srl_round(x_rn + upd, bf, mode_of(SRL_RN), NULL);
        if (frozen < 0 && nx == x_rn && upd != 0)
            frozen = k;
        x_rn = nx;
        x_sr = srl_round(x_sr - lr * A * (x_sr - xs), bf, mode_of(SRL_SR), &rng);
        x_ex = x_ex - lr * A * (x_ex - xs);
    }
    tab_print(o, &tb, "  ");
    const double ulp = srl_format_ulp(bf, x_rn);
    if (frozen >= 0)
        fprintf(o, "\nrn froze at step %ld: from then on |lr a (x - x*)| <= ulp(x)/2, so every\n"
                   "update rounds away. It stalls at distance %s from x*; the prediction\n"
                   "ulp/(2 lr a) = %s (theory/T05) is the largest distance at which that can\n"
                   "happen.\n",
                frozen, num(b1, fabs(x_rn - xs)), num(b2, ulp / (2 * lr * A)));
    else
        fprintf(o, "\nrn has not frozen within %ld steps: it is at distance %s from x*; it\n"
                   "freezes within ulp/(2 lr a) = %s of x* (theory/T05); more steps (--n)\n"
                   "show it.\n",
                n, num(b1, fabs(x_rn - xs)), num(b2, ulp / (2 * lr * A)));
    fprintf(o, "sr keeps moving: an update of a fraction of an ulp moves x one ulp with that\n"
               "probability, so E[x] follows the exact iterate (a random walk at small lr,\n"
               "theory/T07), and x ends within a few ulps of x*.\n");
    picture_line(o, a, "gd");
    fprintf(o, "The figure (stall distance against the learning rate, with the theory line):\n"
               "  srlab sweep experiments/stall.ini --quick -o stall.csv\n"
               "  srlab plot stall --in stall.summary.csv -o stall.png\n");
    return 0;
}

static const char gd_gp[] =
    "set title sprintf('Gradient descent with %s weights', fmt_name)\n"
    "set xlabel 'step'\n"
    "set ylabel 'x'\n"
    "set key bottom right\n"
    "plot $data using 1:5 with lines dt 2 lw 2 lc rgb 'gray40' title 'x*', " EXACT_RN_SR;

/* ---- replicas ---- */

static int demo_replicas(FILE *o, const demo_args *a, FILE *dat)
{
    const srl_format *bf = &a->f;
    const uint64_t seed = a->seed;
    const int n = (int)a->n;
    enum { D = 1000 };
    static double x[3][D], xs[D];
    char b1[CLI_NUM_LEN];
    const double lr = a->lr;
    fprintf(o, "Three replicas of a %d-weight model (%s weights) train data-parallel on\n"
               "f(x) = 1/2 |x - x*|^2: every step all replicas hold the same weights and apply\n"
               "the same averaged gradient, lr %s, and write their weights with sr.\n"
               "Replicas 0 and 1 draw from the SAME stream (shared randomness, as the seed paper\n"
               "prescribes); replica 2 draws from its own stream.\n"
               "seed %llu (pcg32)\n\n", D, bf->name, num(b1, lr), (unsigned long long)seed);
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_DEFAULT, seed, 7);
    for (int i = 0; i < D; i++) {
        xs[i] = srl_round(srl_rng_normal(&data), bf, mode_of(SRL_RN), NULL);
        x[0][i] = x[1][i] = x[2][i] = 0.0;
    }
    srl_rng shared, own;
    srl_rng_init(&shared, SRL_RNG_DEFAULT, seed, 100);
    srl_rng_init(&own, SRL_RNG_DEFAULT, seed, 200);
    fprintf(o, "  step  differing weights (0 vs 1)  (0 vs 2)   |x0 - x2| / |x0|\n");
    const int every = n > 400 ? n / 400 : 1;
    if (dat)
        fprintf(dat, "# step differing(0 vs 1) differing(0 vs 2)\n0 0 0\n");
    for (int k = 1; k <= n; k++) {
        srl_rng s1 = shared; /* replicas 0 and 1 consume the same draws */
        for (int i = 0; i < D; i++) {
            /* the averaged gradient, from replica 0's weights (all replicas see the same one) */
            const double g = x[0][i] - xs[i];
            x[0][i] = srl_round(x[0][i] - lr * g, bf, mode_of(SRL_SR), &shared);
            x[1][i] = srl_round(x[1][i] - lr * g, bf, mode_of(SRL_SR), &s1);
            x[2][i] = srl_round(x[2][i] - lr * g, bf, mode_of(SRL_SR), &own);
        }
        const bool row = k == 1 || decade((uint64_t)k) || k == n;
        if (row || (dat && k % every == 0)) {
            int d01 = 0, d02 = 0;
            double dist = 0, nrm = 0;
            for (int i = 0; i < D; i++) {
                d01 += x[0][i] != x[1][i];
                d02 += x[0][i] != x[2][i];
                dist += (x[0][i] - x[2][i]) * (x[0][i] - x[2][i]);
                nrm += x[0][i] * x[0][i];
            }
            if (row)
                fprintf(o, "  %4d  %-27d %-10d %.3g\n", k, d01, d02,
                        nrm > 0 ? sqrt(dist / nrm) : 0.0);
            if (dat && k % every == 0)
                fprintf(dat, "%d %d %d\n", k, d01, d02);
        }
    }
    fprintf(o, "\nWith shared draws the replicas make the same choice for every weight: they stay\n"
               "bit-identical for ever. With independent draws a weight whose update is a\n"
               "fraction p of an ulp goes different ways with probability 2p(1-p) per step, and\n"
               "the replicas drift apart like a random walk (theory/T12).\n");
    picture_line(o, a, "replicas");
    fprintf(o, "The figure (replica distance against step, shared against independent):\n"
               "  srlab sweep experiments/gpt_replicas.ini --quick -o replicas.csv\n"
               "  srlab plot gpt_replicas --in replicas.csv -o replicas.png\n");
    return 0;
}

static const char replicas_gp[] =
    "set title sprintf('Replicas with %s weights: weights that differ from replica 0', fmt_name)\n"
    "set xlabel 'step'\n"
    "set ylabel 'differing weights (of 1000)'\n"
    "set yrange [0:*]\n"
    "set key bottom right\n"
    "plot $data using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'independent draws (0 vs 2)', \\\n"
    "     $data using 1:2 with lines lw 2 lc rgb '#d62728' title 'shared draws (0 vs 1)'\n";

/* ---- SR against RN with gradient noise ---- */

#define XO_SEEDS 64
#define XO_NLR 15

/* The mean over XO_SEEDS seeds of the loss gap averaged over the last fifth of `steps` steps of
 * noisy SGD on (x - x*)^2/2 (x0 = x* - 1/4, noise sd 1), for exact, rn and sr writes into the
 * format; the three modes see the same noise. */
static void crossover_lr(double mean[3], const demo_args *a, double lr, double xs, double x0)
{
    const uint64_t steps = a->n, from = steps - steps / 5;
    mean[0] = mean[1] = mean[2] = 0;
    for (uint64_t s = 0; s < XO_SEEDS; s++) {
        srl_rng noise, draws;
        srl_rng_init(&noise, SRL_RNG_DEFAULT, a->seed + s, 1);
        srl_rng_init(&draws, SRL_RNG_DEFAULT, a->seed + s, 2);
        double x[3] = {x0, x0, x0}, acc[3] = {0, 0, 0};
        for (uint64_t t = 1; t <= steps; t++) {
            const double xi = srl_rng_normal(&noise);
            for (int m = 0; m < 3; m++) {
                const double y = x[m] - lr * (x[m] - xs + xi);
                x[m] = m == 0 ? y
                              : srl_round(y, &a->f, mode_of(m == 1 ? SRL_RN : SRL_SR), &draws);
                if (t > from)
                    acc[m] += 0.5 * (x[m] - xs) * (x[m] - xs);
            }
        }
        for (int m = 0; m < 3; m++)
            mean[m] += acc[m] / (double)(steps - from) / XO_SEEDS;
    }
}

/* The model's value of the same average (srl_t14_path) for mode m; NaN when out of memory. */
static double crossover_model(srl_t14_mode m, const demo_args *a, double lr, double q)
{
    const uint64_t steps = a->n, from = steps - steps / 5;
    double *ex = malloc((steps + 1) * sizeof *ex), sum = 0;
    if (!ex)
        return NAN;
    srl_t14_path(ex, m, 1, lr, 1, q, -0.25, steps);
    for (uint64_t t = from + 1; t <= steps; t++)
        sum += ex[t];
    free(ex);
    return sum / (double)(steps - from);
}

static int demo_crossover(FILE *o, const demo_args *a, FILE *dat)
{
    const double xs = 1.5, x0 = 1.25, q = srl_format_ulp(&a->f, xs);
    char b1[CLI_NUM_LEN];
    fprintf(o, "Noisy SGD on f(x) = (x - x*)^2/2 with x* = 1.5, from x0 = 1.25, the gradient\n"
               "x - x* + xi with xi standard normal; the weight is stored in %s (spacing\n"
               "ulp = %s at x*) and written with rn or sr, or kept exact. Each row: the loss\n"
               "gap averaged over the last fifth of %llu steps and %d seeds (from seed %llu),\n"
               "measured and predicted (theory/T14).\n\n",
            a->f.name, num(b1, q), (unsigned long long)a->n, XO_SEEDS,
            (unsigned long long)a->seed);
    fprintf(o, "  lr         r=lr/ulp  exact      rn         sr         | predicted: exact  "
               "rn         sr\n");
    if (dat)
        fprintf(dat, "# lr measured: exact rn sr; predicted: exact rn sr\n");
    cli_progress prog; /* about 10 s at the default size: say so on a terminal */
    cli_progress_start(&prog, "demo crossover", "learning rates", XO_NLR, 0, false);
    for (int i = 0; i < XO_NLR; i++) {
        const double lr = q / 32 * pow(2, 0.5 * i);
        double mean[3], pred[3];
        crossover_lr(mean, a, lr, xs, x0);
        for (int m = 0; m < 3; m++)
            pred[m] = crossover_model((srl_t14_mode)m, a, lr, q);
        fprintf(o, "  %-10.3g %-9.3g %-10.3g %-10.3g %-10.3g |            %-10.3g %-10.3g "
                   "%.3g\n",
                lr, lr / q, mean[0], mean[1], mean[2], pred[0], pred[1], pred[2]);
        if (dat)
            fprintf(dat, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", lr, mean[0], mean[1],
                    mean[2], pred[0], pred[1], pred[2]);
        cli_progress_show(&prog, (uint64_t)i + 1);
    }
    cli_progress_clear(&prog);
    const double lrc = srl_t14_crossover(1, 1, q, x0 - xs, (double)a->n);
    fprintf(o, "\nAt large lr rn dithers: its rounding error is nearly uniform, ulp^2/12 per\n"
               "step, half of sr's ulp^2/6, so rn is slightly better. Near lr = ulp/2 rn's\n"
               "updates start to be rounded away, and below it rn freezes at x0. sr never\n"
               "freezes; below lr* = ulp/sqrt(6) = %.3g its loss stops falling and stays\n"
               "near ulp/(2 sqrt(2 pi)). Over %llu steps sr beats rn below lr_c = %.3g.\n",
            srl_t14_lr_star(q, 1), (unsigned long long)a->n, lrc);
    picture_line(o, a, "crossover");
    fprintf(o, "The figure from a sweep (rn, sr, fp32 with the model drawn):\n"
               "  srlab sweep experiments/srrn.ini --quick -o srrn.csv\n"
               "  srlab plot srrn --in srrn.summary.csv -o srrn.png\n");
    return 0;
}

static const char crossover_gp[] =
    "set title sprintf('Noisy SGD with %s weights: loss gap against learning rate', fmt_name)\n"
    "set xlabel 'learning rate'\n"
    "set ylabel 'mean loss gap'\n"
    "set logscale xy\n"
    "set key top left\n"
    "plot $data using 1:5 with lines dt 2 lw 2 lc rgb 'black' title 'exact (model)', \\\n"
    "     $data using 1:6 with lines dt 2 lw 2 lc rgb '#d62728' title 'rn (model)', \\\n"
    "     $data using 1:7 with lines dt 2 lw 2 lc rgb '#1f77b4' title 'sr (model)', \\\n"
    "     $data using 1:2 with points pt 7 lc rgb 'black' title 'exact', \\\n"
    "     $data using 1:3 with points pt 7 lc rgb '#d62728' title 'rn', \\\n"
    "     $data using 1:4 with points pt 7 lc rgb '#1f77b4' title 'sr'\n";

/* Knobs a demo has (bits of demo_spec.knobs). */
enum { K_TERM = 1, K_LR = 2 };

static const struct demo_spec {
    const char *name;
    int (*fn)(FILE *, const demo_args *, FILE *);
    const char *what;
    const char *gp; /* gnuplot commands drawing $data (fmt_name: the format) */
    unsigned knobs; /* besides -f, --n, --seed, --plot, --table */
    uint64_t n, nmax;
    const char *knob_list;
} demos[] = {
    {"accumulate", demo_accumulate, "1.0 + 0.001 a thousand times in bf16, rn against sr",
     accumulate_gp, K_TERM, 1000, 100000, "-f, --n, --term, --seed, --plot, --table"},
    {"harmonic", demo_harmonic, "the harmonic series stagnating in bf16 under rn", harmonic_gp,
     0, 10000, 10000000, "-f, --n, --seed, --plot, --table"},
    {"gd", demo_gd, "gradient descent freezing under rn, creeping under sr", gd_gp, K_LR, 2000,
     1000000, "-f, --n, --lr, --seed, --plot, --table"},
    {"replicas", demo_replicas, "three replicas: shared SR draws agree, independent drift",
     replicas_gp, K_LR, 1000, 100000, "-f, --n, --lr, --seed, --plot, --table"},
    {"crossover", demo_crossover, "noisy SGD: where sr beats rn, measured against theory/T14",
     crossover_gp, 0, 10000, 100000, "-f, --n, --seed, --plot, --table"},
};
#define NDEMOS (sizeof demos / sizeof *demos)

/* ---- the picture ---- */

/* The figure's file format from its name: "png", "svg", "pdf", or NULL. */
static const char *figure_kind(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".png") || !strcmp(dot, ".svg") || !strcmp(dot, ".pdf")))
        return dot + 1;
    return NULL;
}

/* The gnuplot script: the data as an inline block, then the output (a figure, or the 'set
 * table' file; `out`, a fixed name in gnuplot's folder) and the demo's plot commands. The format's
 * name is the one value from the command line, checked as a text literal (src/cli/gnuplot.h).
 * false when that name cannot be one. */
static bool write_script(FILE *m, const struct demo_spec *d, const demo_args *a,
                         const char *data, size_t datalen, const char *kind, const char *out,
                         bool table)
{
    fputs("$data << EOD\n", m);
    fwrite(data, 1, datalen, m);
    fputs("EOD\nfmt_name = ", m);
    if (!cli_gp_literal(m, a->f.name, strlen(a->f.name), CLI_GP_TEXT))
        return false;
    fputc('\n', m);
    if (table) {
        fprintf(m, "set table '%s'\n", out);
    } else {
        if (!strcmp(kind, "png"))
            fputs("set terminal pngcairo size 900,600 enhanced font 'DejaVu Sans,12'\n", m);
        else if (!strcmp(kind, "svg"))
            fputs("set terminal svg size 900,600 enhanced font 'DejaVu Sans,12' dynamic\n", m);
        else
            fputs("set terminal pdfcairo size 6in,4in enhanced font 'DejaVu Sans,10'\n", m);
        fprintf(m, "set output '%s'\nset grid lc rgb '#dddddd'\n", out);
    }
    /* the demo's settings, then (for the table) numbers in full whatever the axes' formats */
    const char *plot = strstr(d->gp, "\nplot ");
    const size_t head = plot ? (size_t)(plot - d->gp) + 1 : 0;
    fwrite(d->gp, 1, head, m);
    if (table)
        fputs("set format x '%.12g'\nset format y '%.12g'\n", m);
    fputs(d->gp + head, m);
    fputs(table ? "unset table\n" : "set output\n", m);
    return true;
}

/* Draw (table false) or tabulate (table true) the data into the output o: gnuplot runs the
 * script in its private folder (src/cli/gnuplot.h) and what it drew is checked and copied. */
static int draw(const struct demo_spec *d, const demo_args *a, const char *data, size_t datalen,
                cli_out *o, bool table)
{
    const char *what = table ? "--table" : "--plot", *kind = table ? "txt" : figure_kind(o->path);
    char out[32], *script = NULL;
    size_t slen = 0;
    snprintf(out, sizeof out, "srlab-%s.%s", table ? "table" : "figure", kind);
    FILE *m = open_memstream(&script, &slen);
    if (!m)
        return cli_sys_error("demo", "out of memory");
    const bool ok = write_script(m, d, a, data, datalen, kind, out, table);
    if (fclose(m) != 0 || !ok) {
        free(script);
        return ok ? cli_sys_error("demo", "out of memory")
                  : cli_error("demo", "-f: the format's name '%s' cannot be a title", a->f.name);
    }
    cli_gp g;
    cli_host_exit e;
    int rc = cli_gp_open(&g, "demo");
    if (!rc)
        rc = cli_gp_put(&g, "srlab-demo.gp", NULL, script, slen);
    if (!rc)
        rc = cli_gp_expect(&g, out, o->path);
    if (!rc)
        rc = cli_gp_run(&g, "srlab-demo.gp", NULL, &e);
    if (!rc && e.signal)
        rc = cli_sys_error("demo", "gnuplot was killed by signal %d", e.signal);
    else if (!rc && e.status)
        rc = cli_error("demo", "gnuplot could not draw the picture (its message is above)");
    if (!rc)
        rc = cli_gp_take(&g, out, kind, what, o->fp);
    cli_gp_close(&g);
    free(script);
    return rc;
}

/* ---- the command ---- */

static int list_demos(void)
{
    printf("srlab demo NAME: short demonstrations, printed step by step\n\n");
    for (size_t i = 0; i < NDEMOS; i++)
        printf("  %-11s %s\n", demos[i].name, demos[i].what);
    printf("\nexample: srlab demo accumulate (srlab demo --help: the knobs)\n");
    return 0;
}

enum { O_SEED, O_FORMAT, O_N, O_TERM, O_LR, O_PLOT, O_TABLE };

/* the figure or table is copied into a file (srlab demo writes no picture to a terminal) */
#define GP_FILE "the picture goes into a file (give a file name)"

/* The command line of srlab demo, as read. */
typedef struct demo_cmdline {
    const char *name, *plot, *table, *n_text;
    const char *term_opt, *lr_opt; /* "--term", "--lr" when given */
    demo_args a;
    bool finished; /* --help was answered: return the status as it is */
} demo_cmdline;

/* Read the options; 0, or an exit status (then, or with D->finished, nothing more to do). */
static int demo_parse_args(int argc, char **argv, demo_cmdline *D)
{
    static const cli_opt opts[] = {[O_SEED] = {"seed", 0, "S"},   [O_FORMAT] = {"format", 'f', "FMT"},
                                   [O_N] = {"n", 0, "N"},         [O_TERM] = {"term", 0, "T"},
                                   [O_LR] = {"lr", 0, "LR"},      [O_PLOT] = {"plot", 0, "FILE"},
                                   [O_TABLE] = {"table", 0, "FILE"}, {NULL, 0, NULL}};
    cli_args ar;
    cli_args_init(&ar, "demo", opts, argc, argv);
    demo_args *a = &D->a;
    int rc = 0;
    for (int k; !rc && (k = cli_args_next(&ar)) != CLI_ARGS_DONE;) {
        switch (k) {
        case CLI_ARGS_HELP: D->finished = true; return cli_help(help_text);
        case CLI_ARGS_BAD: return CLI_EXIT_USAGE;
        case CLI_ARGS_POSITIONAL:
            if (D->name)
                return cli_error("demo", "one demo at a time: '%s' after '%s'", ar.val, D->name);
            D->name = ar.val;
            break;
        case O_SEED: rc = cli_parse_seed("demo", ar.opt, ar.val, &a->seed); break;
        case O_FORMAT: rc = cli_parse_format("demo", ar.opt, ar.val, &a->f); break;
        case O_N: D->n_text = ar.val; break; /* its range depends on the demo */
        case O_TERM:
            D->term_opt = "--term";
            rc = cli_parse_real("demo", ar.opt, ar.val, &a->term);
            if (!rc && !(a->term > 0))
                rc = cli_error("demo", "%s: '%s' is not positive", ar.opt, ar.val);
            break;
        case O_LR:
            D->lr_opt = "--lr";
            rc = cli_parse_real("demo", ar.opt, ar.val, &a->lr);
            if (!rc && !(a->lr > 0 && a->lr < 1))
                rc = cli_error("demo", "%s: '%s' is not in (0, 1)", ar.opt, ar.val);
            break;
        case O_PLOT: D->plot = ar.val; break;
        case O_TABLE: D->table = ar.val; break;
        }
    }
    return rc;
}

/* The demo named name in *dp; an exit status when there is none. */
static int demo_lookup(const char *name, const struct demo_spec **dp)
{
    const struct demo_spec *d = NULL;
    for (size_t i = 0; i < NDEMOS; i++)
        if (!strcmp(name, demos[i].name))
            d = &demos[i];
    if (!d) {
        char list[256] = "";
        for (size_t i = 0; i < NDEMOS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     demos[i].name);
        return cli_error("demo", "unknown demo '%s' (known: %s)", name, list);
    }
    *dp = d;
    return 0;
}

/* The options against the demo's knobs (--n's range is the demo's), and --plot, --table. */
static int demo_check_options(demo_cmdline *D, const struct demo_spec *d)
{
    int rc;
    if ((D->term_opt && !(d->knobs & K_TERM)) || (D->lr_opt && !(d->knobs & K_LR)))
        return cli_error("demo", "%s: %s has no such knob (its knobs: %s)",
                         D->term_opt && !(d->knobs & K_TERM) ? D->term_opt : D->lr_opt, d->name,
                         d->knob_list);
    D->a.n = d->n;
    if (D->n_text && (rc = cli_parse_count("demo", "--n", D->n_text, 1, d->nmax, &D->a.n)))
        return rc;
    char q[CLI_QUOTE_LEN];
    if (D->plot && !figure_kind(D->plot))
        return cli_error("demo", "--plot: %s: the picture must end in .png, .svg or .pdf",
                         cli_quote(q, sizeof q, D->plot, strlen(D->plot), 200));
    for (int k = 0; k < 2; k++) {
        const char *path = k ? D->table : D->plot;
        if (path && cli_gp_path_check(path))
            return cli_error("demo", "%s: %s %s", k ? "--table" : "--plot",
                             cli_quote(q, sizeof q, path, strlen(path), 200),
                             cli_gp_path_check(path));
    }
    if ((D->plot || D->table) && !cli_host_has_program("gnuplot"))
        return cli_error("demo", "%s: gnuplot is not installed: install Debian's gnuplot-nox "
                         "(apt-get install gnuplot-nox)", D->plot ? "--plot" : "--table");
    return 0;
}

/* Run demo d into standard output, and its picture and table into plot and table if given. */
static int demo_run(const struct demo_spec *d, const demo_args *a, const char *plot,
                    const char *table)
{
    int rc;
    /* Open every output before any work, so a bad path fails fast. */
    cli_out o, fig, tab;
    memset(&fig, 0, sizeof fig), memset(&tab, 0, sizeof tab);
    fig.slot = tab.slot = -1;
    if ((rc = cli_out_open(&o, "demo", NULL, NULL)))
        return rc;
    if (plot && ((rc = cli_out_open(&fig, "demo", "--plot", plot)) ||
                 (rc = cli_out_need_file(&fig, plot, GP_FILE)))) {
        cli_out_abort(&o), cli_out_abort(&fig);
        return rc;
    }
    if (table && ((rc = cli_out_open(&tab, "demo", "--table", table)) ||
                  (rc = cli_out_need_file(&tab, table, GP_FILE)))) {
        cli_out_abort(&o), cli_out_abort(&fig), cli_out_abort(&tab);
        return rc;
    }
    char *data = NULL;
    size_t datalen = 0;
    FILE *dat = plot || table ? open_memstream(&data, &datalen) : NULL;
    if ((plot || table) && !dat)
        rc = cli_sys_error("demo", "out of memory");
    if (!rc)
        rc = d->fn(o.fp, a, dat);
    if (dat && fclose(dat) != 0 && !rc)
        rc = cli_sys_error("demo", "out of memory");
    if (!rc && plot)
        rc = draw(d, a, data, datalen, &fig, false);
    if (!rc && table)
        rc = draw(d, a, data, datalen, &tab, true);
    if (!rc && plot)
        rc = cli_out_commit(&fig);
    if (!rc && table)
        rc = cli_out_commit(&tab);
    if (!rc)
        rc = cli_out_commit(&o);
    cli_out_abort(&o), cli_out_abort(&fig), cli_out_abort(&tab);
    free(data);
    return rc;
}

int cmd_demo(int argc, char **argv)
{
    demo_cmdline D = {.a = {*srl_format_find("bf16"), 0.001, 0.01, 0, 1}};
    int rc = demo_parse_args(argc, argv, &D);
    if (rc || D.finished)
        return rc;
    if (!D.name) {
        if (D.plot || D.table || D.n_text || D.term_opt || D.lr_opt)
            return cli_error("demo", "name a demo for these options (srlab demo lists them)");
        return list_demos();
    }
    const struct demo_spec *d = NULL;
    if ((rc = demo_lookup(D.name, &d)) || (rc = demo_check_options(&D, d)))
        return rc;
    D.a.plot = D.plot;
    return demo_run(d, &D.a, D.plot, D.table);
}
