/* src/cli/runcmd.c: the driver `srlab run` and `srlab train` share (src/cli/runcmd.h). */
#include "cli/runcmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli/cli.h"
#include "cli/host.h"
#include "cli/progress.h"
#include "cli/rows.h"

/* The value of --problem, or NULL. */
static const char *find_problem(int argc, char **argv)
{
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--problem") && i + 1 < argc)
            name = argv[++i];
        else if (!strncmp(argv[i], "--problem=", 10))
            name = argv[i] + 10;
    }
    return name;
}

/* Is --help or -h among the options? */
static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return true;
    }
    return false;
}

/* "a, b, c": the problems of a kind. */
static void list_problems(char *buf, size_t len, srl_run_kind kind)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < srl_runner_count() && k + 2 < len; i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind == kind)
            k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", r->name);
    }
}

void cli_runcmd_print_problems(FILE *fp, srl_run_kind kind)
{
    for (size_t i = 0; i < srl_runner_count(); i++) {
        const srl_runner *r = srl_runner_at(i);
        if (r->kind == kind)
            fprintf(fp, "  %-10s %s\n", r->name, r->summary);
    }
}

int cli_runcmd_help(const char *cmd, cli_runcmd_help_fn write, const srl_runner *r)
{
    cli_out o;
    int rc = cli_out_open(&o, cmd, NULL, NULL);
    if (rc)
        return rc;
    write(o.fp, r);
    return cli_out_commit(&o);
}

int cli_runcmd_runner(const char *cmd, srl_run_kind kind, cli_runcmd_help_fn general_help,
                      cli_runcmd_help_fn problem_help, int argc, char **argv,
                      const srl_runner **r)
{
    const char *name = find_problem(argc, argv);
    char known[256], q[CLI_QUOTE_LEN];
    list_problems(known, sizeof known, kind);
    *r = NULL;
    if (!name) {
        if (wants_help(argc, argv))
            return cli_runcmd_help(cmd, general_help, NULL);
        return cli_error(cmd, "--problem is required (known: %s; see 'srlab %s --help')", known,
                         cmd);
    }
    const srl_runner *found = srl_runner_find(kind, name);
    if (!found) {
        cli_quote(q, sizeof q, name, strlen(name), CLI_QUOTE_MAX);
        if (kind == SRL_RUN_EXPERIMENT && srl_runner_find(SRL_RUN_TRAIN, name))
            return cli_error(cmd, "--problem: %s is a training problem: see 'srlab train "
                                  "--help' (experiments: %s)", q, known);
        return cli_error(cmd, "--problem: unknown problem %s (known: %s)", q, known);
    }
    if (wants_help(argc, argv))
        return cli_runcmd_help(cmd, problem_help, found);
    *r = found;
    return 0;
}

int cli_runcmd_error(const char *cmd, const srl_runner *r, int st, const srl_err *err)
{
    const char *msg = err->msg[0] ? err->msg : srl_strerror(st);
    const char *colon = strchr(msg, ':');
    char key[64];
    bool is_key = false;
    if (colon && (size_t)(colon - msg) < sizeof key) {
        memcpy(key, msg, (size_t)(colon - msg));
        key[colon - msg] = 0;
        is_key = srl_runner_param(r, key) != NULL;
    }
    if (st == SRL_ENOMEM || st == SRL_EIO)
        return cli_sys_error(cmd, "%s%s", is_key ? "--" : "", msg);
    return cli_error(cmd, "%s%s", is_key ? "--" : "", msg);
}

/* ---- options ---- */

enum { O_PROBLEM, O_OUTPUT, O_SEED, O_SEEDS, O_THREADS, O_FIXED };

int cli_runcmd_parse(cli_runcmd_args *a, const char *cmd, const srl_runner *r, int argc,
                     char **argv)
{
    a->cfg = srl_config_new();
    a->path = NULL;
    a->seed = 1;
    a->nseeds = 1;
    a->threads = 0;
    const srl_param *tables[2] = {r->params, srl_runner_common_params(r->kind)};
    size_t n = O_FIXED;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++)
            n++;
    cli_opt *opts = calloc(n + 1, sizeof *opts);
    const srl_param **param = calloc(n + 1, sizeof *param);
    int rc = 0;
    if (!a->cfg || !opts || !param) {
        rc = cli_sys_error(cmd, "out of memory");
        goto done;
    }
    opts[O_PROBLEM] = (cli_opt){"problem", 0, "NAME"};
    opts[O_OUTPUT] = (cli_opt){"output", 'o', "FILE"};
    opts[O_SEED] = (cli_opt){"seed", 0, "S"};
    opts[O_SEEDS] = (cli_opt){"seeds", 0, "N"};
    opts[O_THREADS] = (cli_opt){"threads", 0, "N"};
    n = O_FIXED;
    for (int k = 0; k < 2; k++)
        for (const srl_param *p = tables[k]; p && p->key; p++) {
            if (!strcmp(p->key, "seed") || !strcmp(p->key, "problem") ||
                !strcmp(p->key, "threads"))
                continue;
            char letter = !strcmp(p->key, "format") ? 'f' : !strcmp(p->key, "rounding") ? 'r' : 0;
            opts[n] = (cli_opt){p->key, letter, "VALUE"};
            param[n] = p;
            n++;
        }
    opts[n] = (cli_opt){NULL, 0, NULL};
    cli_args ar;
    cli_args_init(&ar, cmd, opts, argc, argv);
    char q[CLI_QUOTE_LEN];
    for (int k; !rc && (k = cli_args_next(&ar)) != CLI_ARGS_DONE;) {
        switch (k) {
        case CLI_ARGS_HELP: rc = -1; break;
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL:
            cli_quote(q, sizeof q, ar.val, strlen(ar.val), CLI_QUOTE_MAX);
            rc = cli_error(cmd, "unexpected argument %s (options are --KEY VALUE; see 'srlab %s "
                                "--problem %s --help')", q, cmd, r->name);
            break;
        case O_PROBLEM: break; /* found before parsing */
        case O_OUTPUT: a->path = ar.val; break;
        case O_SEED: rc = cli_parse_seed(cmd, ar.opt, ar.val, &a->seed); break;
        case O_SEEDS:
            rc = cli_parse_count(cmd, ar.opt, ar.val, 1, CLI_RUNCMD_MAX_SEEDS, &a->nseeds);
            break;
        case O_THREADS: {
            long long t;
            if (!(rc = cli_parse_int(cmd, ar.opt, ar.val, 1, 4096, &t)))
                a->threads = (int)t;
            break;
        }
        default: { /* each key once: cli_args_next refuses a repeat */
            char canon[SRL_FORMAT_NAME_LEN];
            const char *c = ar.val;
            while (*c && (unsigned char)*c >= 0x20 && *c != 0x7f)
                c++;
            if (*c) { /* a value is one line of text: a CSV field, a message */
                rc = cli_error(cmd, "%s: %s holds the control character \\x%02x (values are "
                               "text on one line)", ar.opt, cli_quote(q, sizeof q, ar.val,
                               strlen(ar.val), CLI_QUOTE_MAX), (unsigned char)*c);
                break;
            }
            /* a format or a mode under its one name: outputs show it however it was spelled */
            if (srl_config_set(a->cfg, param[k]->key,
                               srl_config_canonical(canon, sizeof canon, param[k]->key,
                                                    ar.val)) != SRL_OK)
                rc = cli_sys_error(cmd, "out of memory");
            else if (cli_runcmd_file_key(param[k]->key)) /* a file the run reads: no output */
                cli_input_note(ar.val, NULL);            /* may replace it (cli.h, inputs) */
            break;
        }
        }
    }
done:
    free(opts);
    free(param);
    return rc;
}

/* ---- axes ---- */

int cli_runcmd_axes_alloc(cli_runcmd_axes *ax, size_t n)
{
    memset(ax, 0, sizeof *ax);
    ax->names = calloc(n ? n : 1, sizeof *ax->names);
    ax->values = calloc(n ? n : 1, sizeof *ax->values);
    return ax->names && ax->values ? 0 : -1;
}

void cli_runcmd_axes_add(cli_runcmd_axes *ax, const char *name, const char *value)
{
    ax->names[ax->n] = name;
    ax->values[ax->n] = value;
    ax->n++;
}

void cli_runcmd_axes_free(cli_runcmd_axes *ax)
{
    free(ax->names);
    free(ax->values);
    ax->names = ax->values = NULL;
}

/* ---- running ---- */

void cli_runcmd_seeds_line(char *buf, size_t len, const cli_runcmd_args *a, const char *streams)
{
    if (a->nseeds == 1)
        snprintf(buf, len, "seeds: %" PRIu64 " (%s)", a->seed, streams);
    else
        snprintf(buf, len, "seeds: %" PRIu64 " to %" PRIu64 " (--seed S --seeds N: S, S+1, ..., "
                 "S+N-1; one block of rows each; %s)", a->seed, a->seed + a->nseeds - 1, streams);
}

/* The rows on their way to the file, counted for the progress line: a training run's `step`
 * column says how far its seed has come; an experiment without steps counts seeds. */
typedef struct counted {
    srl_sink to;
    cli_progress *p;
    uint64_t steps, seed; /* steps per seed (0: count seeds), the seed's index from 0 */
    size_t step_col;      /* the `step` column, or SIZE_MAX */
} counted;

static int counted_begin(void *ctx, size_t ncol, const char *const *names,
                         const srl_col_kind *kinds)
{
    counted *c = ctx;
    c->step_col = SIZE_MAX;
    for (size_t i = 0; i < ncol; i++)
        if (!strcmp(names[i], "step") && kinds[i] != SRL_COL_STR)
            c->step_col = i;
    return c->to.begin(c->to.ctx, ncol, names, kinds);
}

static int counted_row(void *ctx, const srl_value *v)
{
    counted *c = ctx;
    if (c->steps && c->step_col != SIZE_MAX) {
        const srl_value *x = &v[c->step_col];
        const double step = x->kind == SRL_COL_INT ? (double)x->i : x->num;
        if (step >= 0 && step <= (double)c->steps)
            cli_progress_show(c->p, c->seed * c->steps + (uint64_t)step);
    }
    return c->to.row(c->to.ctx, v);
}

/* The steps of one seed (the runner's `steps` key, given or its default), or 0: none. */
static uint64_t steps_per_seed(const srl_runner *r, const srl_config *cfg)
{
    const srl_param *p = srl_runner_param(r, "steps");
    uint64_t n = 0;
    srl_err err;
    if (!p || srl_config_u64(cfg, "steps", p->def, &n, &err) != SRL_OK)
        return 0;
    return n;
}

/* Every seed into `body` (the checked stream spool); notes go to `notes` (one '#' line each) and
 * standard error. */
static int run_seeds(const char *cmd, const srl_runner *r, const cli_runcmd_args *a,
                     cli_runcmd_axes *ax, FILE *body, const cli_stream *spool, FILE *notes,
                     int *ndiverged)
{
    cli_rows w;
    cli_rows_init(&w, body, ax->n, ax->names);
    cli_rows_set_axis_values(&w, ax->values);
    cli_progress prog;
    counted cnt = {cli_rows_sink(&w), &prog, steps_per_seed(r, a->cfg), 0, SIZE_MAX};
    const uint64_t seeds = a->nseeds;
    if (cnt.steps && seeds > UINT64_MAX / cnt.steps)
        cnt.steps = 0;
    cli_progress_start(&prog, cmd, cnt.steps ? "steps" : "seeds",
                       cnt.steps ? cnt.steps * seeds : seeds, 0, false);
    srl_sink sink = {counted_begin, counted_row, &cnt};
    int rc = 0;
    char info[sizeof ((srl_run_report *)0)->info] = ""; /* the last '# model:' line written */
    for (uint64_t b = 0; b < a->nseeds && !rc; b++) {
        const uint64_t seed = a->seed + b; /* wraps modulo 2^64, like every seed */
        snprintf(ax->seed, sizeof ax->seed, "%" PRIu64, seed);
        if (srl_config_set(a->cfg, "seed", ax->seed) != SRL_OK) {
            rc = cli_sys_error(cmd, "out of memory");
            break;
        }
        srl_run_report rep;
        srl_err err;
        err.msg[0] = 0;
        cnt.seed = b;
        const int st = srl_run(r, a->cfg, &sink, &rep, &err);
        if (st || rep.note[0]) /* a message follows, on a line of its own */
            cli_progress_clear(&prog);
        else if (!cnt.steps)
            cli_progress_show(&prog, b + 1);
        if (st && w.wide) { /* a row too wide to write (rows.h, bounded outputs) */
            char why[400];
            cli_rows_wide_message(&w, why, sizeof why);
            rc = cli_error(cmd, "seed %" PRIu64 ": %s: shorten the values of the axes", seed, why);
            break;
        }
        if (st == SRL_EIO && spool->err) { /* the rows' file: its errno, not the library's */
            rc = cli_sys_error(cmd, "seed %" PRIu64 ": cannot write the rows (a temporary file "
                               "beside the output): %s", seed, strerror(spool->err));
            break;
        }
        if (st) {
            rc = cli_runcmd_error(cmd, r, st, &err);
            break;
        }
        if (rep.diverged && ndiverged)
            (*ndiverged)++;
        if (rep.info[0] && strcmp(rep.info, info)) { /* once, unless a seed changes it */
            fprintf(notes, "# model: %s\n", rep.info);
            memcpy(info, rep.info, sizeof info);
        }
        if (rep.note[0]) {
            fprintf(notes, "# %s (seed %" PRIu64 "): %s\n", rep.diverged ? "warning" : "note",
                    seed, rep.note);
            cli_note(cmd, "%sseed %" PRIu64 ": %s", rep.diverged ? "warning: " : "", seed,
                     rep.note);
        }
    }
    cli_progress_clear(&prog);
    cli_rows_free(&w);
    return rc;
}

/* The rows of every seed, bounded before any work (CLI_MAX_ROWS, each seed counting CLI_RUN_ROWS
 * for its notes): else exit 2 naming the keys. */
static int check_rows(const char *cmd, const srl_runner *r, const cli_runcmd_args *a)
{
    const uint64_t each = srl_run_rows_bound(r, a->cfg);
    const uint64_t rows = each > UINT64_MAX / a->nseeds ? UINT64_MAX : each * a->nseeds;
    if (cli_output_rows(rows, a->nseeds) <= CLI_MAX_ROWS)
        return 0;
    const char *steps = srl_config_get(a->cfg, "steps"), *every = srl_config_get(a->cfg, "log-every");
    const srl_param *ps = srl_runner_param(r, "steps"), *pl = srl_runner_param(r, "log-every");
    if (!ps || !pl) /* an experiment: only its seeds count */
        return cli_error(cmd, "--seeds %" PRIu64 " would write more than one output holds (at "
                         "most %u rows, each seed counting %u for its own lines): run fewer "
                         "seeds", a->nseeds, CLI_MAX_ROWS, CLI_RUN_ROWS);
    return cli_error(cmd, "--steps %s with --log-every %s (%" PRIu64 " seed%s) would write up "
                     "to %" PRIu64 " rows, more than one output holds (at most %u rows, each "
                     "seed counting %u for its own lines, so that srlab can read the output "
                     "back): log less often (--log-every), or run fewer steps or seeds",
                     steps ? steps : ps->def, every ? every : pl->def, a->nseeds,
                     a->nseeds == 1 ? "" : "s", rows, CLI_MAX_ROWS, CLI_RUN_ROWS);
}

/* Where the rows go while the runs write them (issue 12: memory does not grow with the rows):
 * an unnamed temporary file beside the output (the file system that must hold the output
 * anyway), else tmpfile()'s; copied after the '#' lines once every run succeeded. A checked
 * stream on k (src/cli/cli.h), so that a full disk is said as such. */
static FILE *rows_spool(const cli_out *o, cli_stream *k)
{
    char *t = o->tmp ? cli_alloc_printf("%s.rows.XXXXXX", o->tmp) : NULL;
    int fd = t ? mkstemp(t) : -1;
    if (fd >= 0)
        unlink(t); /* unnamed from now on: nothing to clean up, whatever happens */
    free(t);
    if (fd < 0) {
        FILE *tf = tmpfile();
        fd = tf ? dup(fileno(tf)) : -1;
        if (tf)
            fclose(tf);
    }
    FILE *fp = fd >= 0 ? cli_stream_open(k, fd, "w+") : NULL;
    if (!fp && fd >= 0)
        close(fd);
    return fp;
}

/* Copy the whole of `from` (its stream fk, rewound) into `to`; 0, or the errno of the read (the
 * write's is kept by to's own stream). */
static int copy_all(FILE *from, cli_stream *fk, FILE *to)
{
    char buf[1 << 16];
    size_t n;
    int e = cli_stream_finish(from, fk);
    if (!e && fseeko(from, 0, SEEK_SET) != 0)
        e = errno;
    while (!e && (n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n)
            break;
    return e ? e : fk->err;
}

/* On a terminal, the closing line: what ran, how long it took, where the rows are. */
static void closing_line(const char *cmd, const srl_runner *r, const cli_runcmd_args *a,
                         double seconds, int ndiverged)
{
    if (!isatty(2))
        return;
    char el[32];
    cli_duration(el, sizeof el, seconds);
    const uint64_t steps = steps_per_seed(r, a->cfg);
    fprintf(stderr, "srlab %s: %s, %" PRIu64 " seed%s", cmd, r->name, a->nseeds,
            a->nseeds == 1 ? "" : "s");
    if (steps)
        fprintf(stderr, " of %" PRIu64 " steps", steps);
    fprintf(stderr, " in %s, %d diverged; rows %s%s\n", el, ndiverged,
            a->path && strcmp(a->path, "-") ? "in " : "on standard output",
            a->path && strcmp(a->path, "-") ? a->path : "");
}

int cli_runcmd_execute(const char *cmd, const srl_runner *r, const cli_runcmd_args *a,
                       cli_runcmd_axes *ax, int argc, char **argv, const char *const *extra,
                       int *ndiverged)
{
    const double t0 = cli_host_now();
    int diverged = 0;
    char *head = NULL, *notes_mem = NULL;
    size_t head_len = 0, notes_len = 0;
    FILE *body = NULL, *notes = NULL, *hfp = NULL;
    cli_out out;
    cli_stream spool;
    int rc = check_rows(cmd, r, a), e;
    if (!rc)
        rc = cli_out_open(&out, cmd, "-o", a->path);
    if (rc)
        return rc;
    body = rows_spool(&out, &spool);
    notes = open_memstream(&notes_mem, &notes_len); /* CLI_RUN_BYTES a seed at most */
    hfp = open_memstream(&head, &head_len);
    if (!body || !notes || !hfp) {
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    cli_rows_preamble(hfp, argc, argv, extra);
    if (fclose(hfp)) {
        hfp = NULL;
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    hfp = NULL;
    if (head_len > CLI_HEAD_BYTES) { /* the command line, before any work (rows.h) */
        rc = cli_error(cmd, "the command line is %zu bytes, more than the %zu an output's '#' "
                       "lines may take", head_len, CLI_HEAD_BYTES);
        goto done;
    }
#ifdef _OPENMP
    if (a->threads > 0) /* the kernels' threads; the results do not depend on them */
        omp_set_num_threads(srl_run_team(a->threads, 0));
#endif
    if ((rc = run_seeds(cmd, r, a, ax, body, &spool, notes, &diverged)))
        goto done;
    if (ndiverged)
        *ndiverged = diverged;
    if (fclose(notes)) {
        notes = NULL;
        rc = cli_sys_error(cmd, "cannot buffer the output: %s", strerror(errno));
        goto done;
    }
    notes = NULL;
    /* the output's own write errors are kept by its stream for the commit to report */
    fwrite(head, 1, head_len, out.fp);
    if (notes_len)
        fwrite(notes_mem, 1, notes_len, out.fp);
    if ((e = copy_all(body, &spool, out.fp))) {
        rc = cli_sys_error(cmd, "cannot write the rows (a temporary file beside the output): "
                           "%s", strerror(e));
        goto done;
    }
    fclose(body);
    body = NULL;
    rc = cli_out_commit(&out);
    if (!rc)
        closing_line(cmd, r, a, cli_host_now() - t0, diverged);
    free(head);
    free(notes_mem);
    return rc;
done:
    if (body)
        fclose(body);
    if (notes)
        fclose(notes);
    if (hfp)
        fclose(hfp);
    cli_out_abort(&out);
    free(head);
    free(notes_mem);
    return rc;
}

/* ---- help ---- */

/* The words of text from column `indent` on, wrapped before column 99, continuation lines
 * indented as the first. */
static void print_wrapped(FILE *fp, const char *text, int indent)
{
    const int width = 98;
    int col = indent;
    while (*text) {
        const char *sp = strchr(text, ' ');
        const int len = sp ? (int)(sp - text) : (int)strlen(text);
        if (col > indent && col + 1 + len > width) {
            fprintf(fp, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', fp);
            col++;
        }
        fwrite(text, 1, (size_t)len, fp);
        col += len;
        text += len;
        while (*text == ' ')
            text++;
    }
    fputc('\n', fp);
}

void cli_runcmd_print_params(FILE *fp, const srl_param *t, int width)
{
    for (; t && t->key; t++) {
        if (!strcmp(t->key, "seed"))
            continue;
        char flag[64], line[768];
        snprintf(flag, sizeof flag, "--%s", t->key);
        fprintf(fp, "  %-*s ", width, flag);
        snprintf(line, sizeof line, "%s%s%s%s", t->help,
                 t->def && *t->def ? " (default " : !t->def ? " (required)" : "",
                 t->def && *t->def ? t->def : "", t->def && *t->def ? ")" : "");
        print_wrapped(fp, line, width + 3);
    }
}
