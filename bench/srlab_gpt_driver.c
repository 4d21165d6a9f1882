/* bench/srlab_gpt_driver.c: `srlab train --problem gpt` timed per step, for bench/peers.sh beside
 * bench/llmc_driver.c (issue 16). Compiled by peers.sh against srlab's build (libsrlab), never
 * part of it.
 *
 * The run is the one `srlab train --problem gpt --opt adamw --lr 1e-3 --wd 0.1 --strategy S
 * --n-layer L --n-embd C --n-head H --block-size T --batch-size B --vocab V --steps N` does
 * (built-in Markov data, 20000 symbols, or with --data FILE that token file; one evaluation
 * window, and rows only at step 0 and the last step, so that no evaluation falls between two
 * timed steps). The clock is read in the
 * per-step hook of the GPT runner (src/problems/gpt_impl.h, the hook `srlab bench train`
 * uses), after the step's micro-batch, forward, backward, gradient write and optimizer step.
 * Threads: OMP_NUM_THREADS, as for `srlab train` (the results do not depend on it).
 * Usage: srlab_gpt_driver --layers L --width C --heads H --context T --batch B --vocab V
 *                         --steps S --strategy NAME [--data FILE] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "problems/gpt_impl.h"
#include "srlab/config.h"

#include "gpt_steps.h"

static int lap(void *arg, const srl_weights *W, size_t K, uint64_t t, const double *pred_var)
{
    (void)W, (void)K, (void)pred_var;
    step_clock_lap(arg, (long)t);
    return 0;
}

static int no_begin(void *ctx, size_t n, const char *const *names, const srl_col_kind *kinds)
{
    (void)ctx, (void)n, (void)names, (void)kinds;
    return 0;
}

static int no_row(void *ctx, const srl_value *v)
{
    (void)ctx, (void)v;
    return 0;
}

int main(int argc, char **argv)
{
    const gpt_size g = gpt_size_parse(argc, argv, "--strategy");
    const char *key[] = {"strategy", "opt",        "lr",        "wd",          "n-layer",
                         "n-embd",   "n-head",     "block-size", "batch-size", "vocab",
                         "steps",    "data-tokens", "eval-windows", "log-every"};
    char num[7][24];
    const long nums[7] = {g.layers, g.width, g.heads, g.context, g.batch, g.vocab, g.steps};
    for (int i = 0; i < 7; i++)
        snprintf(num[i], sizeof num[i], "%ld", nums[i]);
    const char *val[] = {g.extra, "adamw",  "1e-3", "0.1",    num[0],  num[1],   num[2],
                         num[3],  num[4],   num[5], num[6],   "20000", "1",      "1000000000"};
    if (g.data) { /* the token file in place of the Markov source's length */
        key[11] = "data";
        val[11] = g.data;
    }
    srl_config *c = srl_config_new();
    if (!c)
        return 3;
    for (size_t i = 0; i < sizeof key / sizeof *key; i++)
        if (srl_config_set(c, key[i], val[i])) {
            fprintf(stderr, "%s: cannot set %s\n", argv[0], key[i]);
            return 3;
        }
    step_clock k;
    srl_sink none = {no_begin, no_row, NULL};
    srl_run_report rep;
    srl_err e;
    step_clock_start(&k);
    const int st = srl__gpt_run(c, &none, &rep, lap, &k, &e);
    srl_config_free(c);
    if (st) {
        fprintf(stderr, "%s: --strategy %s: %s\n", argv[0], g.extra, e.msg);
        return 2;
    }
    printf("info %s%s\n", rep.info, rep.diverged ? " (diverged)" : "");
    return 0;
}
