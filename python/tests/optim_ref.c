/* python/tests/optim_ref.c: the C optimizer called directly, as `srlab train` calls it, for
 * python/tests/test_torch.py to compare srlab.torch.AdamW with.
 *
 * Like src/train.c it reads the run's settings with srl_train_config_from (a config of
 * `srlab train` keys: opt, seed, rng, the strategy keys, beta1, beta2, eps, wd, momentum),
 * allocates every weight in ONE srl_weights (srl_weights_alloc) with write streams from
 * srl_train_stream(.., "writes"), sets x0 with srl_weights_init, writes each step's gradients
 * with srl_weights_set_grad_d and takes srl_optim_step(t, lr). (The Python side
 * keeps one srl_weights per parameter; equal results show that the split changes no draw.)
 *
 * Input on stdin, one directive per line, numbers as C99 hex floats (exact):
 *   seed S                    the run's seed (default 1)
 *   rng pcg32|pcg64
 *   opt adamw|adam|sgd|momentum (default adamw)
 *   cfg KEY VALUE             a key of `srlab train` (strategy bf16-sr, param-rounding rd, ...)
 *   hyper B1 B2 EPS WD MU     hyper-parameters (beta1 beta2 eps wd momentum)
 *   weight NAME N X0_0 .. X0_{N-1}
 *   step T LR                 then one line per weight, in order:
 *   grad G_0 .. G_{N-1}       after the last grad line the step is taken and the state printed:
 * Output per step: "step T", then for each weight and each of its tensors (param, m, v, master,
 * comp that exist) a line "NAME TENSOR v_0 .. v_{n-1}" in %a, then "stats LOST NONFINITE".
 * Exit status 0, or 2 with a message on bad input or a library error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srlab/optim.h"
#include "srlab/run.h"
#include "srlab/strategy.h"
#include "srlab/train.h"

#define MAXW 16

static void die(const char *msg, const char *detail)
{
    fprintf(stderr, "optim_ref: %s%s%s\n", msg, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

static char *next_tok(char **save)
{
    char *tok = strtok_r(NULL, " \t\n", save);
    if (!tok)
        die("a directive is missing a field", NULL);
    return tok;
}

static double *read_values(char **save, size_t n)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        die("out of memory", NULL);
    for (size_t i = 0; i < n; i++) {
        char *tok = strtok_r(NULL, " \t\n", save);
        if (!tok)
            die("too few numbers", NULL);
        char *end;
        v[i] = strtod(tok, &end);
        if (*end)
            die("not a number", tok);
    }
    return v;
}

static void print_tensor(const char *name, const char *what, const srl_tensor *t, size_t n)
{
    if (!t)
        return;
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        die("out of memory", NULL);
    srl_tensor_get_d(v, t, 0, n);
    printf("%s %s", name, what);
    for (size_t i = 0; i < n; i++)
        printf(" %a", v[i]);
    printf("\n");
    free(v);
}

static void set(srl_config *cfg, const char *key, const char *value)
{
    if (!key || !value || srl_config_set(cfg, key, value))
        die("bad directive", key);
}

int main(void)
{
    srl_config *cfg = srl_config_new();
    if (!cfg)
        die("out of memory", NULL);
    set(cfg, "opt", "adamw");
    srl_train_config tc;
    srl_weight_spec specs[MAXW];
    char names[MAXW][64];
    double *x0[MAXW];
    size_t nw = 0;
    srl_weights W;
    int have_w = 0;
    uint64_t t = 0;
    double lr = 0;
    size_t grads = 0;
    char *line = NULL;
    size_t cap = 0;
    srl_err err = {""};
    while (getline(&line, &cap, stdin) > 0) {
        char *save = NULL;
        char *key = strtok_r(line, " \t\n", &save);
        if (!key)
            continue;
        if (!strcmp(key, "seed") || !strcmp(key, "rng") || !strcmp(key, "opt")) {
            set(cfg, key, next_tok(&save));
        } else if (!strcmp(key, "cfg")) {
            const char *k = next_tok(&save);
            set(cfg, k, next_tok(&save));
        } else if (!strcmp(key, "hyper")) {
            static const char *const keys[5] = {"beta1", "beta2", "eps", "wd", "momentum"};
            double *h = read_values(&save, 5);
            for (int j = 0; j < 5; j++) {
                char buf[64];
                snprintf(buf, sizeof buf, "%.17g", h[j]);
                set(cfg, keys[j], buf);
            }
            free(h);
        } else if (!strcmp(key, "weight")) {
            if (nw == MAXW || have_w)
                die("too many weights, or a weight after the first step", NULL);
            const char *nm = next_tok(&save);
            const char *ns = next_tok(&save);
            snprintf(names[nw], sizeof names[nw], "%s", nm);
            memset(&specs[nw], 0, sizeof specs[nw]);
            specs[nw].name = names[nw];
            specs[nw].ndim = 1;
            specs[nw].shape[0] = (size_t)strtoull(ns, NULL, 10);
            x0[nw] = read_values(&save, specs[nw].shape[0]);
            nw++;
        } else if (!strcmp(key, "step")) {
            if (!have_w) {
                if (srl_train_config_from(&tc, cfg, &err))
                    die("config", err.msg);
                srl_rng writes;
                srl_train_stream(&writes, &tc, "writes");
                if (srl_weights_alloc(&W, specs, nw, &tc.strat, tc.opt.kind, &writes, &err))
                    die("srl_weights_alloc", err.msg);
                for (size_t j = 0; j < nw; j++)
                    if (srl_weights_init(&W, j, x0[j], &err))
                        die("srl_weights_init", err.msg);
                have_w = 1;
            }
            t = strtoull(next_tok(&save), NULL, 10);
            double *l = read_values(&save, 1);
            lr = l[0];
            free(l);
            grads = 0;
        } else if (!strcmp(key, "grad")) {
            if (!have_w || grads >= nw)
                die("a grad line out of place", NULL);
            double *g = read_values(&save, W.p[grads].n);
            if (srl_weights_set_grad_d(&W, grads, g, t))
                die("srl_weights_set_grad_d failed", NULL);
            free(g);
            if (++grads == nw) {
                srl_optim_config oc = tc.opt;
                srl_step_stats st;
                if (srl_optim_step(&st, &W, &oc, t, lr))
                    die("srl_optim_step failed", NULL);
                printf("step %" PRIu64 "\n", t);
                for (size_t j = 0; j < nw; j++) {
                    const srl_weight *p = &W.p[j];
                    print_tensor(names[j], "param", p->w, p->n);
                    print_tensor(names[j], "m", p->m, p->n);
                    print_tensor(names[j], "v", p->v, p->n);
                    print_tensor(names[j], "master", p->master, p->n);
                    print_tensor(names[j], "comp", p->comp, p->n);
                }
                printf("stats %" PRIu64 " %" PRIu64 "\n", st.lost, st.nonfinite);
            }
        } else {
            die("unknown directive", key);
        }
    }
    free(line);
    for (size_t j = 0; j < nw; j++)
        free(x0[j]);
    if (have_w)
        srl_weights_free(&W);
    srl_config_free(cfg);
    return 0;
}
