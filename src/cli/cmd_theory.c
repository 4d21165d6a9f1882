/* src/cli/cmd_theory.c: `srlab theory NAME [key=value...]`: print the predictions of a theory/
 * statement for given parameters (docs/design.md §9, §10).
 *
 * Arguments -> library call -> output. Each statement (src/cli/theory_table.h; defined in
 * src/cli/theory_t01_t04.c, theory_t05_t08.c, theory_t09_t13.c) names its keys with their
 * defaults and kinds, an evaluation that validates the parameters and calls the library
 * (srl_tNN_eval of include/srlab/theory.h, composed of the functions `srlab check`, the runners
 * and the tests use), its printed lines (a name, the value the library computed, a formula and a
 * one-line meaning, some only under a condition) and the `srlab round`, `srlab run`, `srlab
 * train` and `srlab check` commands that test it. This file parses the key=value arguments by
 * the key table, lays the lines out and prints the commands; no prediction is computed here.
 * Covered: every statement of theory/, T01-T13 and T15-T17 (docs/design.md §9 items 1-13 and
 * 15-17). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/theory_table.h"
#include "srlab/optim.h"

int cmd_theory(int argc, char **argv);

const char *const th_cmd = "theory";

static const th_statement *const statements[] = {
    &th_t01, &th_t02, &th_t03, &th_t04, &th_t05, &th_t06, &th_t07,
    &th_t08, &th_t09, &th_t10, &th_t11, &th_t12, &th_t13, &th_t14,
    &th_t15, &th_t16, &th_t17,
};
#define NSTATEMENTS (sizeof statements / sizeof statements[0])

/* ---- parameters ---- */

static int key_index(const th_statement *s, const char *key, size_t klen)
{
    for (int k = 0; s->keys[k].key; k++)
        if (strlen(s->keys[k].key) == klen && !strncmp(s->keys[k].key, key, klen))
            return k;
    return -1;
}

const char *th_text(const th_view *t, const char *key)
{
    return t->p->text[key_index(t->s, key, strlen(key))];
}

/* The order of an accumulation config, read by the library's parser of such configs
 * (srl_accum_parse, kernels.h: the spellings `srlab run --order` takes too); a comma would
 * smuggle in another key of the config. */
static int parse_order(const char *key, const char *v, srl_accum *c)
{
    char spec[200];
    srl_err e;
    *c = srl_accum_binary64();
    if (strchr(v, ',') || snprintf(spec, sizeof spec, "order=%s", v) >= (int)sizeof spec ||
        srl_accum_parse(c, spec, &e) != SRL_OK)
        return cli_error(th_cmd, "%s: '%s' is not an order (known: recursive, pairwise, "
                                 "blocked:K with K >= 1)", key, v);
    return 0;
}

static int parse_optimizer(const char *key, const char *v, int *k)
{
    for (int i = 0; srl_optim_names[i]; i++)
        if (!strcmp(v, srl_optim_names[i])) {
            *k = i;
            return 0;
        }
    return cli_error(th_cmd, "%s: unknown optimizer '%s' (known: sgd, momentum, adam, adamw)", key,
                     v);
}

/* A real number with the key's constraint on it. */
static int parse_real(const th_key *k, const char *v, const th_params *p, double *x)
{
    char b[CLI_NUM_LEN];
    int rc = cli_parse_real(th_cmd, k->key, v, x);
    if (rc)
        return rc;
    if (k->kind == TH_POS && !(*x > 0))
        return cli_error(th_cmd, "%s: '%s' must be positive", k->key, v);
    if (k->kind == TH_NONNEG && !(*x >= 0))
        return cli_error(th_cmd, "%s: '%s' must not be negative", k->key, v);
    /* a value to be rounded into the format: both its neighbours must exist */
    if (k->kind == TH_IN_RANGE && !(fabs(*x) <= p->format.xmax))
        return cli_error(th_cmd, "%s: '%s' is beyond %s, the largest finite value of %s", k->key,
                         v, cli_fmt_short(b, p->format.xmax), p->format.name);
    return 0;
}

/* Parse the text v of key k into its field of p: 0 or an exit status after a message naming
 * the key. */
static int parse_key(const th_key *k, const char *v, th_params *p)
{
    void *field = (char *)p + k->field;
    switch (k->kind) {
    case TH_FORMAT: return cli_parse_format(th_cmd, k->key, v, field);
    case TH_ROUNDING: return cli_parse_rounding(th_cmd, k->key, v, field);
    case TH_ORDER: return parse_order(k->key, v, field);
    case TH_COUNT: return cli_parse_count(th_cmd, k->key, v, k->min, k->max, field);
    case TH_INT:
        return cli_parse_int(th_cmd, k->key, v, (long long)k->min, (long long)k->max, field);
    case TH_OPTIMIZER: return parse_optimizer(k->key, v, field);
    case TH_ARITH:
        if (!strcmp(v, "fp32") || !strcmp(v, "fp64")) {
            *(srl_arith *)field = !strcmp(v, "fp32") ? SRL_ARITH_FP32 : SRL_ARITH_FP64;
            return 0;
        }
        return cli_error(th_cmd, "%s: '%s' is not fp32 or fp64", k->key, v);
    default: return parse_real(k, v, p, field);
    }
}

/* Every key of s, in the table's order (a key's constraint may use the format before it). */
static int parse_keys(th_params *p, const th_statement *s, const char *const *given)
{
    for (int k = 0; s->keys[k].key; k++) {
        p->text[k] = given[k] ? given[k] : s->keys[k].def;
        const int rc = parse_key(&s->keys[k], p->text[k], p);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- layout ---- */

/* The text of one argument of a line. */
static const char *arg_text(char *b, size_t len, const th_arg *a, const th_view *t)
{
    const char *v = (const char *)t->v + a->field, *p = (const char *)t->p + a->field;
    switch (a->kind) {
    case TH_NUM: return cli_fmt_short(b, *(const double *)v);
    case TH_COUNT_NUM: return cli_fmt_short(b, (double)*(const uint64_t *)v);
    case TH_G: snprintf(b, len, "%g", *(const double *)v); return b;
    case TH_U64: snprintf(b, len, "%llu", (unsigned long long)*(const uint64_t *)v); return b;
    case TH_PICK: return *(const bool *)v ? a->text : a->alt;
    case TH_LITERAL: return a->text;
    case TH_MODE: return srl_rounding_name(b, len, *(const srl_rounding *)v);
    case TH_MESSAGE: return ((const srl_err *)v)->msg;
    case TH_PARAM_U64:
        snprintf(b, len, "%llu", (unsigned long long)*(const uint64_t *)p);
        return b;
    case TH_PARAM_INT: snprintf(b, len, "%lld", *(const long long *)p); return b;
    case TH_PARAM_FORMAT: return ((const srl_format *)p)->name;
    case TH_PARAM_MODE: return srl_rounding_name(b, len, *(const srl_rounding *)p);
    case TH_PARAM_TEXT: return th_text(t, a->text);
    default: return "";
    }
}

/* tmpl with each "%s" replaced by the next of the arguments from *next on (truncated to len). */
static const char *fill(char *out, size_t len, const char *tmpl, const th_arg *args, int *next,
                        const th_view *t)
{
    size_t k = 0;
    for (const char *c = tmpl; *c && k + 1 < len; c++) {
        if (c[0] == '%' && c[1] == 's' && *next < TH_MAX_ARGS && args[*next].kind) {
            char b[CLI_NUM_LEN];
            const char *a = arg_text(b, sizeof b, &args[(*next)++], t);
            const size_t n = strlen(a) < len - 1 - k ? strlen(a) : len - 1 - k;
            memcpy(out + k, a, n);
            k += n;
            c++;
        } else {
            out[k++] = *c;
        }
    }
    out[k] = 0;
    return out;
}

static void print_line(FILE *o, const th_line *l, const th_view *t)
{
    char vb[CLI_NUM_LEN], formula[SRL_ERR_LEN + 128], meaning[SRL_ERR_LEN + 128];
    int next = 0;
    const char *value = arg_text(vb, sizeof vb, &l->value, t);
    fill(formula, sizeof formula, l->formula, l->args, &next, t);
    fill(meaning, sizeof meaning, l->meaning ? l->meaning : "", l->args, &next, t);
    fprintf(o, "  %-20s %-24s %s\n", l->name, value, formula);
    if (*meaning)
        fprintf(o, "  %-20s %-24s %s\n", "", "", meaning);
}

/* Where the statement's file is on this machine: the source tree's theory/ folder, else the
 * installed one ($SRLAB_THEORY overrides both). `file` is "theory/TNN-slug.md". */
static void statement_file(char *buf, size_t len, const char *file)
{
    const char *name = strchr(file, '/');
    snprintf(buf, len, "%s/%s", cli_host_theory_dir(), name ? name + 1 : file);
}

static void header(FILE *o, const th_view *t)
{
    const th_statement *s = t->s;
    char path[1024];
    statement_file(path, sizeof path, s->file);
    fprintf(o, "%s %s\n%s (see %s)\nparameters:", s->id, s->slug, s->title, path);
    for (int k = 0; s->keys[k].key; k++)
        fprintf(o, " %s=%s", s->keys[k].key, t->p->text[k]);
    fputs("\n\n", o);
}

/* Arguments -> library call -> output: the predictions of s for the given keys. */
static int print_statement(FILE *o, const th_statement *s, const char *const *given)
{
    th_params p;
    th_values v;
    memset(&p, 0, sizeof p);
    memset(&v, 0, sizeof v);
    const th_view t = {s, &p, &v};
    int rc = parse_keys(&p, s, given);
    if (!rc && s->eval)
        rc = s->eval(&v, &t);
    if (rc)
        return rc;
    header(o, &t);
    for (const th_line *l = s->lines; l && l->name; l++)
        if (!l->when || l->when(&t))
            print_line(o, l, &t);
    s->commands(o, &t);
    return 0;
}

/* ---- the command ---- */

static const th_statement *find_statement(const char *name)
{
    for (size_t i = 0; i < NSTATEMENTS; i++)
        if (!strcasecmp(name, statements[i]->id) || !strcmp(name, statements[i]->slug))
            return statements[i];
    return NULL;
}

/* "T01 sr-basics, T02 sr-bits-bias, ...": the table's ids and slugs */
static const char *known_list(char *b, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < NSTATEMENTS && k < len; i++)
        k += (size_t)snprintf(b + k, len - k, "%s%s %s", i ? ", " : "", statements[i]->id,
                              statements[i]->slug);
    return b;
}

static void list(FILE *o)
{
    fputs("usage: srlab theory NAME [key=value...]\n"
          "\n"
          "Print the predictions of a theory/ statement for given parameters, each with its\n"
          "formula and meaning, and the srlab round, run, train and check commands that test\n"
          "it. NAME is an id (T05) or a slug (gd-quadratic); keys not given take the defaults\n"
          "shown. A key is written key=value, or --key value and --key=value as in srlab\n"
          "train and run (lr=0.01, --lr 0.01 and --lr=0.01 are the same). Each statement's\n"
          "output names its file: theory/TNN-slug.md of the source tree, or after meson install\n"
          "share/srlab/theory/ (SRLAB_THEORY=DIR overrides both).\n"
          "\n"
          "statements:\n",
          o);
    for (size_t i = 0; i < NSTATEMENTS; i++) {
        const th_statement *s = statements[i];
        fprintf(o, "  %s %s\n      %s\n      keys:", s->id, s->slug, s->title);
        for (int k = 0; s->keys[k].key; k++)
            fprintf(o, " %s=%s", s->keys[k].key, s->keys[k].def);
        fputc('\n', o);
    }
    fputs("\nexamples:\n"
          "  srlab theory T01 format=fp16 x=0.1\n"
          "  srlab theory summation format=fp16 rounding=sr n=100000\n"
          "  srlab theory T05 format=bf16 lr=0.01 xstar=0.3\n"
          "  srlab theory noisy-sgd lr=0.003 sigma=0.1\n"
          "  srlab theory T08 --lr 1e-3 --wd 0.1\n"
          "  srlab theory T12 lr=0.001 steps=200 params=100\n"
          "  srlab theory T13 opt=adamw\n",
          o);
}

static void statement_help(FILE *o, const th_statement *s)
{
    char path[1024];
    statement_file(path, sizeof path, s->file);
    fprintf(o, "usage: srlab theory %s [key=value...]   (or --key value)\n\n%s %s: %s (see %s)\n\nkeys:\n", s->id,
            s->id, s->slug, s->title, path);
    for (int k = 0; s->keys[k].key; k++)
        fprintf(o, "  %-14s %s (default %s)\n", s->keys[k].key, s->keys[k].help, s->keys[k].def);
    fprintf(o, "\nexample:\n  srlab theory %s\n", s->id);
}

/* A positional argument: the statement's name first, then its key=value pairs. */
static int take_positional(const th_statement **s, const char **given, const char *arg,
                           const char *spelled)
{
    char q[CLI_QUOTE_LEN];
    cli_quote(q, sizeof q, spelled, strlen(spelled), CLI_QUOTE_MAX);
    if (!*s) {
        *s = find_statement(arg);
        if (*s)
            return 0;
        char known[NSTATEMENTS * 40];
        return cli_error(th_cmd, "unknown statement %s (known: %s)", q,
                         known_list(known, sizeof known));
    }
    const char *eq = strchr(arg, '=');
    const int ki = eq ? key_index(*s, arg, (size_t)(eq - arg)) : -1;
    if (!eq)
        return cli_error(th_cmd, "%s: expected key=value (see 'srlab theory %s --help')", q,
                         (*s)->id);
    if (ki < 0)
        return cli_error(th_cmd, "%s: unknown key for %s (see 'srlab theory %s --help')", q,
                         (*s)->id, (*s)->id);
    if (given[ki])
        return cli_error(th_cmd, "%s: key given twice", q);
    given[ki] = eq + 1;
    return 0;
}

/* `--KEY VALUE` and `--KEY=VALUE` are the same as `KEY=VALUE` (the spelling of srlab train and
 * run): rewritten into key=value words before the arguments are parsed, in the memory `buf`
 * (argc strings at most); spelled[i] is word i as the user wrote it, for messages. A `--KEY`
 * without a value is refused, naming it. Returns the new argc, or -1 after a message. */
static int keys_as_words(int argc, char **argv, char **out, char **buf, char **spelled)
{
    int n = 0;
    bool positional = false;
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (i == 0 || positional || strncmp(w, "--", 2) || !strcmp(w, "--help") || !w[2] ||
            !(isalpha((unsigned char)w[2]))) {
            positional = positional || (i > 0 && !strcmp(w, "--"));
            spelled[n] = argv[i];
            out[n++] = argv[i];
            continue;
        }
        const char *eq = strchr(w, '=');
        if (!eq && i + 1 >= argc) {
            char q[CLI_QUOTE_LEN];
            cli_quote(q, sizeof q, w, strlen(w), CLI_QUOTE_MAX);
            cli_error(th_cmd, "%s: missing value (write %s VALUE or %s=VALUE)", q, q, w + 2);
            return -1;
        }
        spelled[n] = argv[i];
        buf[n] = eq ? cli_alloc_printf("%s", w + 2) : cli_alloc_printf("%s=%s", w + 2, argv[++i]);
        if (!buf[n]) {
            cli_sys_error(th_cmd, "out of memory");
            return -1;
        }
        out[n] = buf[n];
        n++;
    }
    return n;
}

static int theory_words(int argc, char **argv, char **spelled)
{
    static const cli_opt opts[] = {{NULL, 0, NULL}};
    if (argc < 0)
        return CLI_EXIT_USAGE;
    cli_args a;
    cli_args_init(&a, th_cmd, opts, argc, argv);
    const th_statement *s = NULL;
    const char *given[TH_MAX_KEYS] = {NULL};
    bool help = false;
    int k, rc = 0;
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        if (k == CLI_ARGS_HELP)
            help = true;
        else if (k == CLI_ARGS_BAD)
            rc = CLI_EXIT_USAGE;
        else if (k == CLI_ARGS_POSITIONAL)
            rc = take_positional(&s, given, a.val, spelled[a.i - 1]);
    }
    if (rc)
        return rc;
    cli_out o;
    if ((rc = cli_out_open(&o, th_cmd, NULL, NULL)))
        return rc;
    if (!s)
        list(o.fp);
    else if (help)
        statement_help(o.fp, s);
    else
        rc = print_statement(o.fp, s, given);
    if (rc) {
        cli_out_abort(&o);
        return rc;
    }
    return cli_out_commit(&o);
}

int cmd_theory(int argc, char **argv)
{
    char **words = calloc((size_t)argc + 1, sizeof *words);
    char **owned = calloc((size_t)argc + 1, sizeof *owned);
    char **spelled = calloc((size_t)argc + 1, sizeof *spelled);
    if (!words || !owned || !spelled) {
        free(words);
        free(owned);
        free(spelled);
        return cli_sys_error(th_cmd, "out of memory");
    }
    int rc = theory_words(keys_as_words(argc, argv, words, owned, spelled), words, spelled);
    for (int i = 0; i < argc; i++)
        free(owned[i]);
    free(words);
    free(owned);
    free(spelled);
    return rc;
}
