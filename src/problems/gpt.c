/* src/problems/gpt.c: `--problem gpt`, a small GPT trained in emulated precision on character
 * text (docs/design.md §8; the seed paper's setting at small scale, theory/paper.md).
 *
 * The model (src/problems/gpt_impl.h, src/problems/gpt_tpl.h): token and position embeddings, L pre-norm blocks
 * (layer norm, causal multi-head self-attention, residual; layer norm, GELU MLP of width 4C,
 * residual), a final layer norm and a head tied to the token embedding, cross-entropy averaged
 * over the B*T positions of a micro-batch. Training reads the weights the strategy stores (for mp
 * the bf16 cast of the master), runs every matrix product through the kernels with the
 * strategy's accumulation config, rounds every stored activation into the act slot and every
 * stored activation gradient into the grad slot, and evaluates the nonlinearities in binary32.
 * The parameter gradient is written into the grad slot by the loop (src/problems/models_train.c), which
 * also runs the data-parallel replicas.
 *
 * Data.
 *   data=markov  a text of data-tokens symbols from the order-k Markov source of
 *                include/srlab/markov.h (vocab V, auto meaning 16; markov-order k;
 *                markov-sharpness), built from
 *                the run's "data" stream, one stationary sequence; its last val-frac is the
 *                validation part. fstar = f*(block-size): the best expected loss any model can
 *                reach on a window (entropy rate H at positions with k symbols of context, the
 *                stationary conditional entropies before that).
 *   data=FILE    the bytes of a text file, character (byte) level: the vocabulary is the set of
 *                distinct bytes, in byte order; the last val-frac of the file is the validation
 *                part (a deterministic split); fstar NaN. Refused: a file that cannot be read,
 *                is empty, looks binary (a NUL byte, or more than 1% control bytes other than
 *                tab, newline, vertical tab, form feed, carriage return and escape), has one
 *                distinct byte, or whose training or validation part is shorter than
 *                block-size + 1.
 *                Or a token file as llm.c's data scripts write them (a file whose first int32
 *                is 20240520): a header of 256 little-endian int32 (magic 20240520, version 1,
 *                the number of tokens n > 0, the rest unread), then n uint16 tokens, little
 *                endian, the file exactly 1024 + 2n bytes. The tokens are the symbols: vocab
 *                (2 .. 65536) bounds them, auto meaning the largest token + 1; split as a text
 *                file. Refused, naming the file and the field: a short header, another version,
 *                n <= 0, a size other than 1024 + 2n (truncated or trailing bytes), a token >=
 *                vocab (its position given), a file of one distinct token, a part too short.
 * Batches: replica r's micro-batch of step t is B windows of block-size + 1 symbols of the
 * training part, window b starting at srl_rng_below(ntrain - T) with draw ((t-1) K + r) B + b of
 * the run's "batches" stream (K replicas): a pure function of (seed, t, r, b).
 * Metrics (binary64, the _f64 pass on replica 0's stored parameters): loss = mean cross-entropy
 * over eval-windows windows of the training part, val_loss the same over the validation part;
 * windows evenly spaced (window w starts at floor(w (n - T - 1) / (eval-windows - 1))).
 * Initialisation (the run's "init" stream, weights in order, elements in order): GPT-2's, every
 * matrix N(0, init-std^2) except the residual projections attprojw and fcprojw, N(0, (init-std /
 * sqrt(2 L))^2), and wpe, N(0, (init-std / 2)^2); layer-norm gains 1 and biases 0.
 * Memory: everything the run will allocate (weights and optimizer state of every replica,
 * activations, evaluation buffers, data, the source's tables) is estimated first and compared
 * with mem-limit before anything is allocated. */
#include "problems/gpt_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "problems/runners.h"
#include "srlab/markov.h"
#include "srlab/tensor.h"

/* ---- the three instances of the pass ---- */

/* Offsets in the flat arrays of block l's weights (parameters and gradients alike). */
typedef struct block_off {
    size_t ln1w, ln1b, qkvw, projw, ln2w, ln2b, fcw, fcprojw;
} block_off;

static block_off block_at(const size_t *off, size_t l, size_t C)
{
    block_off w;
    w.ln1w = off[GP_LN1W] + l * C;
    w.ln1b = off[GP_LN1B] + l * C;
    w.qkvw = off[GP_QKVW] + l * C * (3 * C);
    w.projw = off[GP_ATTPROJW] + l * C * C;
    w.ln2w = off[GP_LN2W] + l * C;
    w.ln2b = off[GP_LN2B] + l * C;
    w.fcw = off[GP_FCW] + l * C * (4 * C);
    w.fcprojw = off[GP_FCPROJW] + l * (4 * C) * C;
    return w;
}

/* A copy of rng positioned `skip` draws ahead (for the items of a parallel loop). */
static srl_rng rng_ahead(const srl_rng *rng, uint64_t skip)
{
    srl_rng r;
    if (!rng) {
        memset(&r, 0, sizeof r);
        return r;
    }
    r = *rng;
    if (skip)
        srl_rng_seek(&r, r.counter + skip);
    return r;
}

static void rng_advance(srl_rng *rng, uint64_t n)
{
    if (rng && n)
        srl_rng_seek(rng, rng->counter + n);
}

#define SRL_MODEL_TEMPLATE "problems/gpt_tpl.h"
#include "problems/model_instantiate.h"

/* ---- shapes ---- */

static const char *const wnames[GP_COUNT] = {"wte",  "wpe",  "ln1w",     "ln1b",
                                             "qkvw", "attprojw", "ln2w", "ln2b",
                                             "fcw",  "fcprojw",  "lnfw", "lnfb"};

void srl__gpt_specs(srl_weight_spec *s, const srl__gpt_dims *d)
{
    const size_t V = d->V, T = d->T, C = d->C, L = d->L;
    const struct {
        int nd;
        size_t a, b, c;
    } sh[GP_COUNT] = {{2, V, C, 0},     {2, T, C, 0},     {2, L, C, 0},      {2, L, C, 0},
                      {3, L, C, 3 * C}, {3, L, C, C},     {2, L, C, 0},      {2, L, C, 0},
                      {3, L, C, 4 * C}, {3, L, 4 * C, C}, {1, C, 0, 0},      {1, C, 0, 0}};
    for (int j = 0; j < GP_COUNT; j++) {
        memset(&s[j], 0, sizeof s[j]);
        s[j].name = wnames[j];
        s[j].ndim = sh[j].nd;
        s[j].shape[0] = sh[j].a;
        s[j].shape[1] = sh[j].b;
        s[j].shape[2] = sh[j].c;
    }
}

double srl__gpt_numel(const srl__gpt_dims *d)
{
    const double V = (double)d->V, T = (double)d->T, C = (double)d->C, L = (double)d->L;
    return V * C + T * C + L * (12 * C * C + 4 * C) + 2 * C;
}

static size_t al16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

void srl__gpt_layout_make(srl__gpt_layout *y, const srl__gpt_dims *d, int bwd)
{
    const size_t B = d->B, T = d->T, C = d->C, V = d->V, NH = d->NH, L = d->L;
    const size_t BT = B * T, BTC = BT * C, att = B * NH * T * T;
    memset(y, 0, sizeof *y);
    size_t o = 0;
#define TAKE(field, n)                                                                            \
    do {                                                                                          \
        y->field = o;                                                                             \
        o += al16(n);                                                                             \
    } while (0)
    /* inside one layer, relative to its start */
    TAKE(ln1, BTC);
    TAKE(ln1_mean, BT);
    TAKE(ln1_rstd, BT);
    TAKE(qkv, 3 * BTC);
    TAKE(qh, BTC);
    TAKE(kh, BTC);
    TAKE(vh, BTC);
    TAKE(att, att);
    TAKE(yh, BTC);
    TAKE(atty, BTC);
    TAKE(res2, BTC);
    TAKE(ln2, BTC);
    TAKE(ln2_mean, BT);
    TAKE(ln2_rstd, BT);
    TAKE(fch, 4 * BTC);
    TAKE(fchg, 4 * BTC);
    TAKE(fcth, 4 * BTC);
    TAKE(res3, BTC);
    y->per_layer = o;
    o = 0;
    TAKE(enc, BTC);
    y->l0 = o;
    o += L * y->per_layer;
    TAKE(lnf, BTC);
    TAKE(lnf_mean, BT);
    TAKE(lnf_rstd, BT);
    TAKE(logits, BT * V);
    TAKE(tmpc, BTC);
    const size_t wt = (V > 4 * C ? V : 4 * C) * C;
    TAKE(tsc, wt > BTC ? wt : BTC);
    if (bwd) {
        TAKE(dlogits, BT * V);
        TAKE(dres, BTC);
        TAKE(dln, BTC);
        TAKE(dqkv, 3 * BTC);
        TAKE(dqh, BTC);
        TAKE(dkh, BTC);
        TAKE(dvh, BTC);
        TAKE(datt, att);
        TAKE(dyh, BTC);
        TAKE(datty, BTC);
        TAKE(dfchg, 4 * BTC);
        TAKE(dfch, 4 * BTC);
        TAKE(dtmp, BTC);
    }
#undef TAKE
    y->total = o;
    y->bwd = bwd;
}

double srl__gpt_acts_elems(const srl__gpt_dims *d, int bwd)
{
    const double B = (double)d->B, T = (double)d->T, C = (double)d->C, V = (double)d->V;
    const double NH = (double)d->NH, L = (double)d->L, BT = B * T, BTC = BT * C;
    const double att = B * NH * T * T, pad = 16 * 64;
    double per = 24 * BTC + 4 * BT + att + 18 * 16;
    double wt = (V > 4 * C ? V : 4 * C) * C;
    double n = BTC + L * per + BTC + 2 * BT + BT * V + BTC + (wt > BTC ? wt : BTC) + pad;
    if (bwd)
        n += BT * V + 19 * BTC + att + pad;
    return n;
}

/* ---- the problem ---- */

struct srl__gpt_problem {
    srl__gpt_dims d;       /* d.B: the micro-batch */
    srl_train_config tc;
    srl__replicas rp;
    srl__model model;
    uint8_t *text;         /* ntrain + nval symbols (Markov source, text file) */
    uint16_t *tok16;       /* or (token file) */
    size_t ntrain, nval;
    size_t nwin, Be;       /* evaluation windows, and windows per evaluation pass */
    double init_std;
    srl__gpt_layout lay_f, lay_d;
    float *acts_f;
    double *acts_d;
    double *row_loss;      /* max(B, Be) * T */
    int32_t *tok;          /* max(B, Be) * (T + 1) */
    srl_markov mk;
};

static void problem_free(srl__gpt_problem *g)
{
    if (!g)
        return;
    free(g->text);
    free(g->tok16);
    free(g->acts_f);
    free(g->acts_d);
    free(g->row_loss);
    free(g->tok);
    srl_markov_free(&g->mk);
    free(g);
}

void srl__gpt_problem_free(srl__gpt_problem *p)
{
    problem_free(p);
}

const srl__model *srl__gpt_problem_model(const srl__gpt_problem *p)
{
    return &p->model;
}

const srl_train_config *srl__gpt_problem_train_config(const srl__gpt_problem *p)
{
    return &p->tc;
}

const srl__gpt_dims *srl__gpt_problem_dims(const srl__gpt_problem *p)
{
    return &p->d;
}

double srl__gpt_problem_fstar(const srl__gpt_problem *p)
{
    return p->model.fstar;
}

/* Symbol i of the data (training part first, then validation). */
static inline int32_t sym(const srl__gpt_problem *g, size_t i)
{
    return g->tok16 ? (int32_t)g->tok16[i] : (int32_t)g->text[i];
}

void srl__gpt_problem_batch(const srl__gpt_problem *g, size_t r, uint64_t t, int32_t *tok)
{
    const size_t B = g->d.B, T = g->d.T;
    srl_rng s;
    srl_train_stream(&s, &g->tc, "batches");
    srl_rng_seek(&s, (((t - 1) * (uint64_t)g->rp.K + r) * B));
    for (size_t b = 0; b < B; b++) {
        const size_t start = (size_t)srl_rng_below(&s, g->ntrain - T);
        for (size_t i = 0; i <= T; i++)
            tok[b * (T + 1) + i] = sym(g, start + i);
    }
}

static int cb_init(void *ctx, double *x0, srl_err *err)
{
    (void)err;
    srl__gpt_problem *g = ctx;
    srl_rng r;
    srl_train_stream(&r, &g->tc, "init");
    const double s = g->init_std, sproj = s / sqrt(2.0 * (double)g->d.L);
    for (int j = 0; j < GP_COUNT; j++) {
        double *x = x0 + g->model.off[j];
        size_t n = 1;
        for (int a = 0; a < g->model.specs[j].ndim; a++)
            n *= g->model.specs[j].shape[a];
        const bool gain = j == GP_LN1W || j == GP_LN2W || j == GP_LNFW;
        const bool bias = j == GP_LN1B || j == GP_LN2B || j == GP_LNFB;
        const double sd = (j == GP_ATTPROJW || j == GP_FCPROJW) ? sproj
                          : j == GP_WPE                        ? s / 2
                                                               : s;
        for (size_t i = 0; i < n; i++)
            x[i] = gain ? 1.0 : bias ? 0.0 : sd * srl_rng_normal(&r);
    }
    return SRL_OK;
}

static int cb_grad(void *ctx, size_t r, uint64_t t, const float *p, float *gr, srl_rng *compute,
                   srl_err *err)
{
    srl__gpt_problem *g = ctx;
    srl__gpt_problem_batch(g, r, t, g->tok);
    srl__gpt_pass ps;
    memset(&ps, 0, sizeof ps);
    ps.d = g->d;
    ps.lay = &g->lay_f;
    ps.off = g->model.off;
    ps.accum = &g->tc.strat.accum_cfg;
    for (int k = 0; k < SRL_STRATEGY_GEMMS; k++)
        ps.mx[k] = g->tc.strat.mx_on[k] ? &g->tc.strat.mx[k] : NULL;
    ps.act = g->tc.strat.act;
    ps.grad = g->tc.strat.grad;
    ps.rng = compute;
    ps.row_loss = g->row_loss;
    double loss;
    const int st = srl__gpt_pass_emu(&ps, p, gr, g->tok, g->acts_f, &loss);
    if (st)
        return srl_err_set(err, st, "the forward/backward pass failed: %s%s", srl_strerror(st),
                           st == SRL_EINVAL ? " (is accum's accumulator format inside binary32?)"
                                            : "");
    return SRL_OK;
}

/* Mean binary64 loss over nwin evenly spaced windows of the symbols [at, at + n). */
static int eval_split(srl__gpt_problem *g, const double *x, size_t at, size_t n, double *out)
{
    const size_t T = g->d.T;
    double sum = 0;
    for (size_t w0 = 0; w0 < g->nwin; w0 += g->Be) {
        const size_t nb = g->nwin - w0 < g->Be ? g->nwin - w0 : g->Be;
        for (size_t b = 0; b < nb; b++) {
            const size_t w = w0 + b;
            const size_t start = g->nwin > 1 ? (size_t)((double)w * (double)(n - T - 1) /
                                                        (double)(g->nwin - 1))
                                             : 0;
            for (size_t i = 0; i <= T; i++)
                g->tok[b * (T + 1) + i] = sym(g, at + start + i);
        }
        srl__gpt_pass ps;
        memset(&ps, 0, sizeof ps);
        ps.d = g->d;
        ps.d.B = nb;
        ps.lay = &g->lay_d;
        ps.off = g->model.off;
        ps.row_loss = g->row_loss;
        double ls;
        int st = srl__gpt_pass_f64(&ps, x, NULL, g->tok, g->acts_d, &ls);
        if (st)
            return st;
        sum += ls;
    }
    *out = sum / ((double)g->nwin * (double)T);
    return SRL_OK;
}

static int cb_eval(void *ctx, const double *x, double *loss, double *val, double *extra,
                   srl_err *err)
{
    (void)extra;
    srl__gpt_problem *g = ctx;
    int st = eval_split(g, x, 0, g->ntrain, loss);
    if (!st)
        st = eval_split(g, x, g->ntrain, g->nval, val);
    if (st)
        return srl_err_set(err, st, "evaluating the loss failed: %s", srl_strerror(st));
    return SRL_OK;
}

/* ---- keys ---- */

static const srl_param gpt_params[] = {
    {"n-layer", "2", "transformer blocks L (1 .. 1024)"},
    {"n-head", "2", "attention heads per block (must divide n-embd)"},
    {"n-embd", "32", "width C (a multiple of n-head)"},
    {"block-size", "32", "context length T: positions per training window (>= 1)"},
    {"batch-size", "8", "sequences per micro-batch B (per replica, >= 1)"},
    {"data", "markov",
     "training text: markov (the built-in source with known entropy rate), a text file "
     "(character, byte, level), or a token file as llm.c writes them (a header of 256 int32: "
     "magic 20240520, version 1, the token count; then uint16 tokens)"},
    {"vocab", "auto",
     "alphabet size V: markov 2 .. 256 (auto: 16); a text file's is its number of distinct "
     "characters (auto); a token file's 2 .. 65536 (auto: its largest token + 1; GPT-2's is "
     "50257)"},
    {"markov-order", "2", "markov: order k of the source (1 .. 8)"},
    {"markov-sharpness", "2",
     "markov: transition rows softmax(sharpness * N(0,1)); 0 uniform, larger is peakier"},
    {"data-tokens", "131072", "markov: symbols generated (training + validation)"},
    {"val-frac", "0.1", "fraction of the text, at its end, held out for validation (0 < f < 1)"},
    {"eval-windows", "32",
     "windows of block-size+1 symbols, evenly spaced, for loss (training part) and val_loss"},
    {"init-std", "0.02",
     "standard deviation of the initial weights (residual projections / sqrt(2 n-layer), wpe "
     "/ 2)"},
    SRL__MODEL_KEYS,
    {NULL, NULL, NULL},
};

/* This problem's defaults, and its size keys (src/problems/models_train.c). */
#define def_of(key) srl__model_param_def(gpt_params, key)
#define rd_size(cfg, key, lo, hi, out, err) \
    srl__model_read_size(cfg, gpt_params, key, lo, hi, out, err)

/* The bytes of the regular file `path` into *buf (malloc'ed, *len > 0 bytes), after the memory
 * check. */
static int read_file_bytes(const char *path, const srl_config *cfg, uint8_t **buf, size_t *len,
                           srl_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return srl_err_set(err, SRL_EINVAL, "data: cannot read '%s': %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return srl_err_set(err, SRL_EINVAL, "data: '%s' is not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return srl_err_set(err, SRL_EINVAL, "data: cannot read '%s': %s", path, strerror(errno));
    int st = SRL_OK;
    long size = -1;
    if (fseek(f, 0, SEEK_END) != 0)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s' is not a regular file", path);
    else if ((size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s' is not a regular file (%s)", path,
                         strerror(errno));
    else if (size == 0)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s' is empty", path);
    else
        st = srl__model_mem_check(cfg, 2.0 * (double)size, "text file", err);
    if (!st && !(*buf = malloc((size_t)size)))
        st = srl_err_set(err, SRL_ENOMEM, "out of memory reading '%s'", path);
    if (!st && fread(*buf, 1, (size_t)size, f) != (size_t)size) {
        free(*buf);
        *buf = NULL;
        st = srl_err_set(err, SRL_EINVAL, "data: reading '%s' failed", path);
    }
    fclose(f);
    *len = (size_t)size;
    return st;
}

/* A token file (llm.c's data format): its header of 256 int32, the magic number first. */
enum { TOK_HEADER = 1024, TOK_MAGIC = 20240520, TOK_VERSION = 1 };

/* The little-endian int32 at p. */
static int64_t le32(const uint8_t *p)
{
    const uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                       (uint32_t)p[3] << 24;
    return u <= INT32_MAX ? (int64_t)u : (int64_t)u - ((int64_t)1 << 32);
}

/* Refuse text that looks binary (a NUL byte, or more than 1% control bytes other than tab,
 * newline, vertical tab, form feed, carriage return and escape); count[c] = occurrences of c. */
static int check_text(const char *path, const uint8_t *buf, size_t n, size_t count[256],
                      srl_err *err)
{
    size_t ctrl = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = buf[i];
        if (c == 0 && n >= 4)
            return srl_err_set(err, SRL_EINVAL, "data: '%s' looks binary (a NUL byte at offset "
                               "%zu); give a text file, or a token file as llm.c writes them "
                               "(its first int32 %d; this file's is %lld)", path, i, TOK_MAGIC,
                               (long long)le32(buf));
        if (c == 0)
            return srl_err_set(err, SRL_EINVAL, "data: '%s' looks binary (a NUL byte at offset "
                               "%zu); give a text file", path, i);
        ctrl += (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' &&
                 c != 0x1b) || c == 0x7f;
        count[c]++;
    }
    if ((double)ctrl > 0.01 * (double)n)
        return srl_err_set(err, SRL_EINVAL, "data: '%s' looks binary (%zu of its %zu bytes are "
                           "control characters); give a text file", path, ctrl, n);
    return SRL_OK;
}

/* The split of n symbols (ntrain, then nval) into g; refused when a part is shorter than
 * block-size + 1. `what`: "characters" or "tokens". */
static int split(srl__gpt_problem *g, const char *path, size_t n, double val_frac,
                 const char *what, srl_err *err)
{
    const size_t nval = (size_t)floor(val_frac * (double)n);
    const size_t ntrain = n - nval, need = g->d.T + 1;
    if (ntrain < need || nval < need)
        return srl_err_set(err, SRL_EINVAL,
                           "data: '%s' is too short: its %zu %s split into %zu for training and "
                           "%zu for validation (val-frac %g), and each part must hold block-size "
                           "+ 1 = %zu %s", path, n, what, ntrain, nval, val_frac, need, what);
    g->ntrain = ntrain;
    g->nval = nval;
    return SRL_OK;
}

/* The data keys: data=markov with the source's vocab, order, sharpness and length, or a file
 * (file non-NULL); val-frac for both. */
typedef struct data_keys {
    const char *file;
    bool vauto; /* vocab=auto (else V holds it) */
    size_t V, order, ntok;
    double sharp, val_frac;
} data_keys;

/* A token file's bytes buf[0 .. got) (its first int32 is TOK_MAGIC; buf is taken) into
 * g->tok16, checked field by field, and split. */
static int read_tokens(srl__gpt_problem *g, const char *path, uint8_t *buf, size_t got,
                       const data_keys *dk, srl_err *err)
{
    const int64_t version = got >= 8 ? le32(buf + 4) : 0, n = got >= 12 ? le32(buf + 8) : 0;
    const uint64_t body = got >= TOK_HEADER ? got - TOK_HEADER : 0;
    int st = SRL_OK;
    if (got < TOK_HEADER)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s' is a token file (its first int32 is %d) "
                         "cut short: %zu bytes, less than its %d-byte header", path, TOK_MAGIC,
                         got, TOK_HEADER);
    else if (version != TOK_VERSION)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s': token file version %lld (header int32 "
                         "1); srlab reads version %d (uint16 tokens), as llm.c does", path,
                         (long long)version, TOK_VERSION);
    else if (n <= 0)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s': the token count (header int32 2) is "
                         "%lld; it must be positive", path, (long long)n);
    else if (body != 2 * (uint64_t)n)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s': its header counts %lld tokens (%llu "
                         "bytes after the %d-byte header) but %llu bytes follow it (%s)", path,
                         (long long)n, 2 * (unsigned long long)n, TOK_HEADER,
                         (unsigned long long)body, body < 2 * (uint64_t)n ? "truncated"
                                                                          : "trailing bytes");
    if (st) {
        free(buf);
        return st;
    }
    /* the tokens decoded in place, to the front (token i's bytes lie beyond slot i) */
    uint16_t *t = (uint16_t *)(void *)buf;
    const size_t ntok = (size_t)n;
    unsigned lo = 65535, hi = 0;
    size_t over = SIZE_MAX;
    for (size_t i = 0; i < ntok; i++) {
        const uint8_t *p = buf + TOK_HEADER + 2 * i;
        const unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8;
        t[i] = (uint16_t)v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        if (!dk->vauto && v >= dk->V && over == SIZE_MAX)
            over = i;
    }
    if (over != SIZE_MAX)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s': token %u at position %zu is not below "
                         "vocab = %zu", path, (unsigned)t[over], over, dk->V);
    else if (lo == hi)
        st = srl_err_set(err, SRL_EINVAL, "data: '%s' holds a single distinct token (%u): there "
                         "is nothing to predict", path, lo);
    if (!st)
        st = split(g, path, ntok, dk->val_frac, "tokens", err);
    if (st) {
        free(buf);
        return st;
    }
    uint16_t *small = realloc(buf, ntok * sizeof *t); /* give back the header's bytes */
    g->tok16 = small ? small : t;
    g->d.V = dk->vauto ? (size_t)hi + 1 : dk->V;
    return SRL_OK;
}

/* A text file's bytes buf[0 .. got) (buf is taken) into g->text, as symbols 0 .. V-1 (the
 * distinct bytes in byte order), and split. */
static int read_text(srl__gpt_problem *g, const char *path, uint8_t *buf, size_t got,
                     const data_keys *dk, srl_err *err)
{
    size_t count[256] = {0};
    int st;
    if (!dk->vauto)
        st = srl_err_set(err, SRL_EINVAL, "vocab: applies only to data=markov and token files "
                         "(a text file's vocabulary is its distinct characters: leave it auto)");
    else
        st = check_text(path, buf, got, count, err);
    if (st) {
        free(buf);
        return st;
    }
    uint8_t map[256];
    size_t V = 0;
    for (int c = 0; c < 256; c++)
        if (count[c])
            map[c] = (uint8_t)V++;
    if (V < 2) {
        free(buf);
        return srl_err_set(err, SRL_EINVAL, "data: '%s' has a single distinct character: there "
                           "is nothing to predict", path);
    }
    for (size_t i = 0; i < got; i++)
        buf[i] = map[buf[i]];
    if ((st = split(g, path, got, dk->val_frac, "characters", err))) {
        free(buf);
        return st;
    }
    g->text = buf;
    g->d.V = V;
    return SRL_OK;
}

/* The file dk->file: a token file when its first int32 is llm.c's magic number, else text. */
static int read_data_file(srl__gpt_problem *g, const data_keys *dk, const srl_config *cfg,
                          srl_err *err)
{
    uint8_t *buf = NULL;
    size_t got = 0;
    const int st = read_file_bytes(dk->file, cfg, &buf, &got, err);
    if (st)
        return st;
    if (got >= 4 && le32(buf) == TOK_MAGIC)
        return read_tokens(g, dk->file, buf, got, dk, err);
    return read_text(g, dk->file, buf, got, dk, err);
}

/* The model's keys into g (training config, replicas, sizes, init-std), val-frac into dk. */
static int read_model_keys(srl__gpt_problem *g, const srl_config *cfg, data_keys *dk,
                           srl_err *err)
{
    int st = srl_train_config_from(&g->tc, cfg, err);
    if (!st)
        st = srl__model_check_strategy(&g->tc.strat, err);
    if (!st)
        st = srl__model_read_replicas(cfg, &g->rp, err);
    if (!st && !(st = rd_size(cfg, "n-layer", 1, 1024, &g->d.L, err)) &&
        !(st = rd_size(cfg, "n-head", 1, 1u << 20, &g->d.NH, err)) &&
        !(st = rd_size(cfg, "n-embd", 1, 1u << 24, &g->d.C, err)) &&
        !(st = rd_size(cfg, "block-size", 1, 1u << 24, &g->d.T, err)) &&
        !(st = rd_size(cfg, "batch-size", 1, 1u << 24, &g->d.B, err)) &&
        !(st = rd_size(cfg, "eval-windows", 1, 1u << 20, &g->nwin, err)) &&
        !(st = srl_config_double(cfg, "val-frac", def_of("val-frac"), &dk->val_frac, err)))
        st = srl_config_double(cfg, "init-std", def_of("init-std"), &g->init_std, err);
    if (!st && g->d.C % g->d.NH)
        st = srl_err_set(err, SRL_EINVAL, "n-embd: %zu is not divisible by n-head = %zu (every "
                         "head has n-embd / n-head channels)", g->d.C, g->d.NH);
    if (!st && !(dk->val_frac > 0 && dk->val_frac < 1))
        st = srl_err_set(err, SRL_EINVAL, "val-frac: %g is outside (0, 1)", dk->val_frac);
    if (!st && !(g->init_std > 0 && isfinite(g->init_std)))
        st = srl_err_set(err, SRL_EINVAL, "init-std: %g is not a positive finite number",
                         g->init_std);
    return st;
}

/* data, and the keys of the Markov source (refused with a text file). */
static int read_data_keys(const srl_config *cfg, data_keys *dk, srl_err *err)
{
    const char *data = srl_config_get(cfg, "data");
    dk->file = !data || !strcmp(data, "markov") ? NULL : data;
    dk->V = 16;
    dk->order = 2;
    dk->ntok = 0;
    dk->sharp = 0;
    const char *vtext = srl_config_get(cfg, "vocab");
    const bool vauto = !vtext || !strcmp(vtext, "auto");
    dk->vauto = vauto;
    int st;
    if (!dk->file) {
        if (!(st = vauto ? SRL_OK : rd_size(cfg, "vocab", 2, 256, &dk->V, err)) &&
            !(st = rd_size(cfg, "markov-order", 1, 8, &dk->order, err)) &&
            !(st = rd_size(cfg, "data-tokens", 2, (uint64_t)1 << 34, &dk->ntok, err)))
            st = srl_config_double(cfg, "markov-sharpness", def_of("markov-sharpness"),
                                   &dk->sharp, err);
        return st;
    }
    static const char *const only[] = {"markov-order", "markov-sharpness", "data-tokens", NULL};
    if (!vauto && (st = rd_size(cfg, "vocab", 2, 65536, &dk->V, err)))
        return st; /* a token file's bound (a text file refuses it once read) */
    for (int i = 0; only[i]; i++)
        if (srl_config_get(cfg, only[i]))
            return srl_err_set(err, SRL_EINVAL, "%s: applies only to data=markov", only[i]);
    return SRL_OK;
}

/* Everything the run will allocate (weights and optimizer state of every replica, activations,
 * evaluation buffers, data, the source's tables), estimated before anything is and compared
 * with mem-limit; g->d.V is known (a text file has been read). */
static int check_problem_memory(const srl__gpt_problem *g, const srl_config *cfg,
                                const data_keys *dk, srl_err *err)
{
    const srl__gpt_dims dd = g->d;
    const double numel = srl__gpt_numel(&dd);
    const double Be = (double)(g->nwin < dd.B ? g->nwin : dd.B);
    srl__gpt_dims de = dd;
    de.B = (size_t)Be;
    double need = srl__model_train_bytes(&g->tc, numel, numel + 16.0 * GP_COUNT, g->rp.K);
    need += 4 * srl__gpt_acts_elems(&dd, 1) + 8 * srl__gpt_acts_elems(&de, 0);
    need += (8 + 4) * (double)(dd.B > Be ? dd.B : Be) * ((double)dd.T + 1);
    if (dk->file)
        return srl__model_mem_check(cfg, need, "model", err);
    const double S = pow((double)dk->V, (double)dk->order);
    need += (double)dk->ntok + 8 * (2 * S * (double)dk->V + 4 * S);
    if (S > (double)(1u << 22))
        return srl_err_set(err, SRL_EINVAL, "vocab^markov-order = %zu^%zu exceeds 2^22 "
                           "contexts", dk->V, dk->order);
    return srl__model_mem_check(cfg, need, "model", err);
}

/* The Markov source (the run's "data" stream) and its text of data-tokens symbols, split. */
static int make_markov_text(srl__gpt_problem *g, const data_keys *dk, srl_err *err)
{
    srl_rng data_rng;
    srl_train_stream(&data_rng, &g->tc, "data");
    int st = srl_markov_new(&g->mk, (int)dk->V, (int)dk->order, dk->sharp, &data_rng, err);
    if (st)
        return st;
    const size_t nval = (size_t)floor(dk->val_frac * (double)dk->ntok);
    g->ntrain = dk->ntok - nval;
    g->nval = nval;
    if (g->ntrain < g->d.T + 1 || nval < g->d.T + 1)
        return srl_err_set(err, SRL_EINVAL,
                           "data-tokens: %zu symbols split into %zu for training and %zu for "
                           "validation (val-frac %g); each part must hold block-size + 1 = %zu",
                           dk->ntok, g->ntrain, nval, dk->val_frac, g->d.T + 1);
    if (!(g->text = malloc(dk->ntok)))
        return srl_err_set(err, SRL_ENOMEM, "out of memory for %zu symbols", dk->ntok);
    srl_markov_sample(&g->mk, g->text, dk->ntok, &data_rng);
    return SRL_OK;
}

/* The model (weights, callbacks, f*) and the buffers of the training and evaluation passes. */
static int setup_model(srl__gpt_problem *g, bool markov, srl_err *err)
{
    srl__model *m = &g->model;
    m->ctx = g;
    m->nweights = GP_COUNT;
    srl__gpt_specs(m->specs, &g->d);
    srl__model_layout(m);
    m->init = cb_init;
    m->grad = cb_grad;
    m->eval = cb_eval;
    m->fstar = markov ? srl_markov_fstar(&g->mk, g->d.T) : NAN;
    m->nextra = 0;
    g->Be = g->nwin < g->d.B ? g->nwin : g->d.B;
    srl__gpt_dims de = g->d;
    de.B = g->Be;
    srl__gpt_layout_make(&g->lay_f, &g->d, 1);
    srl__gpt_layout_make(&g->lay_d, &de, 0);
    const size_t rows = g->d.B > g->Be ? g->d.B : g->Be;
    g->acts_f = aligned_alloc(64, al16(g->lay_f.total) * sizeof(float));
    g->acts_d = aligned_alloc(64, al16(g->lay_d.total) * sizeof(double));
    g->row_loss = malloc(rows * g->d.T * sizeof(double));
    g->tok = malloc(rows * (g->d.T + 1) * sizeof(int32_t));
    if (!g->acts_f || !g->acts_d || !g->row_loss || !g->tok)
        return srl_err_set(err, SRL_ENOMEM, "out of memory for the activations");
    memset(g->acts_f, 0, al16(g->lay_f.total) * sizeof(float));
    memset(g->acts_d, 0, al16(g->lay_d.total) * sizeof(double));
    return SRL_OK;
}

int srl__gpt_problem_new(srl__gpt_problem **out, const srl_config *cfg, srl_err *err)
{
    *out = NULL;
    srl__gpt_problem *g = calloc(1, sizeof *g);
    if (!g)
        return srl_err_set(err, SRL_ENOMEM, "out of memory");
    data_keys dk;
    int st = read_model_keys(g, cfg, &dk, err);
    if (!st)
        st = read_data_keys(cfg, &dk, err);
    if (!st && dk.file) /* a file is read first: it decides V */
        st = read_data_file(g, &dk, cfg, err);
    else if (!st)
        g->d.V = dk.V;
    if (!st)
        st = check_problem_memory(g, cfg, &dk, err);
    if (!st && !dk.file)
        st = make_markov_text(g, &dk, err);
    if (!st)
        st = setup_model(g, !dk.file, err);
    if (st) {
        problem_free(g);
        return st;
    }
    *out = g;
    return SRL_OK;
}

int srl__gpt_run(const srl_config *cfg, const srl_sink *out, srl_run_report *rep,
                 srl__model_hook hook, void *arg, srl_err *err)
{
    srl__gpt_problem *g;
    int st = srl__gpt_problem_new(&g, cfg, err);
    if (st)
        return st;
    st = srl__model_train(&g->model, &g->tc, &g->rp, out, rep, hook, arg, err);
    problem_free(g);
    return st;
}

static int run_gpt(const srl_config *cfg, const srl_sink *out, srl_run_report *rep, srl_err *err)
{
    return srl__gpt_run(cfg, out, rep, NULL, NULL, err);
}

const srl_runner srl__runner_gpt = {
    "gpt", SRL_RUN_TRAIN,
    "a small GPT on character text (built-in Markov source with known f*, or --data FILE: a "
    "text file or llm.c's token files); "
    "K data-parallel replicas",
    gpt_params, run_gpt};
