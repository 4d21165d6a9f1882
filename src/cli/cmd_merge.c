/* src/cli/cmd_merge.c: `srlab merge SHARD.csv... -o out.csv` (docs/design.md §12).
 *
 * Joins the outputs of `srlab sweep --shard I/N` (every shard of one sweep, in any order) into
 * the files the whole sweep would have written on one machine: out.csv from the shards' rows
 * files, out.runs.csv from their runs files (found beside them, as srlab sweep names them), and
 * out.summary.csv from the merged runs, with the statistics over seeds that no single shard
 * could compute. The checks, the joining and the summary are the library's (srl_sweep_merge,
 * srl_sweep_summary); this file reads and writes files: arguments, the outputs checked, the
 * shards read, each kind merged into its output, the summary, all three committed. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "srlab/sweep.h"
#include "cli/host.h" /* cli_read_file */
#include "cli/sweep_cli.h"

#define CMD "merge"

static const char help_text[] =
    "usage: srlab merge SHARD.csv... -o out.csv\n"
    "\n"
    "Join the shards of a sweep (srlab sweep --shard I/N -o SHARD.csv, one per I) into the\n"
    "files one machine would have written: out.csv (rows, in run order), out.runs.csv (one\n"
    "row per run: its final values) and out.summary.csv (one row per grid point: mean, sd\n"
    "and 95% confidence interval over its seeds, computed here from all shards). Each\n"
    "shard's runs file is read from beside it (SHARD.runs.csv). Every shard must be given\n"
    "once; files of different sweeps are refused, naming the first '#' line that differs.\n"
    "The date line is the earliest shard's. Every shard is proved complete: its runs file\n"
    "must hold each of its runs once, and its rows file the rows its '# rows per run:' line\n"
    "counts; a missing run, cut lines or a repeated line is refused (exit 2), naming the\n"
    "shard file and the run.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the merged rows file (required); the runs and summary files go\n"
    "                      beside it\n"
    "\n"
    "example:\n"
    "  srlab sweep stall --shard 0/2 -o stall.0.csv\n"
    "  srlab sweep stall --shard 1/2 -o stall.1.csv\n"
    "  srlab merge stall.0.csv stall.1.csv -o stall.csv\n";

/* The shards of one merge: their rows files and the runs files beside them. */
typedef struct shards {
    size_t n;
    srl_sweep_text *rows, *sums; /* data malloc'd */
    char **sum_names;
} shards;

static void shards_free(shards *s)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->rows)
            free((char *)s->rows[i].data);
        if (s->sums)
            free((char *)s->sums[i].data);
        if (s->sum_names)
            free(s->sum_names[i]);
    }
    free(s->rows);
    free(s->sums);
    free(s->sum_names);
}

/* The arguments: the shard files (in[], *nin of them) and -o. *help: --help was printed. */
static int parse_args(int argc, char **argv, const char **in, size_t *nin, const char **out,
                      bool *help)
{
    static const cli_opt opts[] = {{"output", 'o', "FILE"}, {NULL, 0, NULL}};
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            *help = true;
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD)
            return CLI_EXIT_USAGE;
        if (k == CLI_ARGS_POSITIONAL)
            in[(*nin)++] = a.val;
        else
            *out = a.val; /* -o once: cli_args_next refuses it twice */
    }
    if (!*nin)
        return cli_error(CMD, "no shard files (srlab merge SHARD.csv... -o out.csv)");
    if (!*out)
        return cli_error(CMD, "no output: -o out.csv (the runs and summary files are written "
                         "beside it)");
    return 0;
}

/* Read every shard's rows file and the runs file beside it. */
static int read_shards(shards *s, const char *const *in, size_t nin)
{
    char q[CLI_QUOTE_LEN];
    s->rows = calloc(nin, sizeof *s->rows);
    s->sums = calloc(nin, sizeof *s->sums);
    s->sum_names = calloc(nin, sizeof *s->sum_names);
    s->n = nin;
    if (!s->rows || !s->sums || !s->sum_names)
        return cli_sys_error(CMD, "out of memory");
    for (size_t i = 0; i < nin; i++) {
        if (!(s->sum_names[i] = cli_sweep_sibling(in[i], ".runs.csv")))
            return cli_sys_error(CMD, "out of memory");
        char *d;
        size_t n;
        int e = cli_read_file(in[i], &d, &n);
        if (e)
            return cli_error(CMD, "cannot read %s: %s",
                             cli_quote(q, sizeof q, in[i], strlen(in[i]), 200), cli_read_strerror(e));
        s->rows[i] = (srl_sweep_text){in[i], d, n};
        const char *name = s->sum_names[i];
        e = cli_read_file(name, &d, &n);
        if (e)
            return cli_error(CMD, "cannot read %s, the runs file of %s: %s",
                             cli_quote(q, sizeof q, name, strlen(name), 200), in[i], cli_read_strerror(e));
        s->sums[i] = (srl_sweep_text){name, d, n};
    }
    return 0;
}

/* Merge the files (rows or runs) into an open output; the merged text in *keep when keep is
 * not NULL (the caller frees it). */
static int merge_into(cli_out *o, const srl_sweep_text *files, size_t n, bool runs,
                      srl_sweep_text *keep)
{
    char *buf = NULL;
    size_t len = 0;
    srl_err err;
    int st = srl_sweep_merge(files, n, runs, &buf, &len, &err);
    if (st)
        return st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                : cli_error(CMD, "%s", err.msg);
    fwrite(buf, 1, len, o->fp);
    if (keep)
        *keep = (srl_sweep_text){"the merged runs", buf, len};
    else
        free(buf);
    return 0;
}

/* The summary of the merged runs into an open output. */
static int summary_into(cli_out *o, const srl_sweep_text *runs)
{
    char *buf = NULL;
    size_t len = 0;
    srl_err err;
    int st = srl_sweep_summary(runs, &buf, &len, &err);
    if (st)
        return st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                : cli_error(CMD, "summary: %s", err.msg);
    fwrite(buf, 1, len, o->fp);
    free(buf);
    return 0;
}

/* An output not opened yet (cli_out_abort is a no-op on it). */
static void out_none(cli_out *o)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

/* arguments -> outputs checked -> shards read -> srl_sweep_merge twice -> both files */
int cmd_merge(int argc, char **argv)
{
    char q[CLI_QUOTE_LEN];
    const char *out = NULL;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    size_t nin = 0;
    if (!in)
        return cli_sys_error(CMD, "out of memory");
    bool help = false;
    int rc = parse_args(argc, argv, in, &nin, &out, &help);
    if (rc || help) {
        free(in);
        return rc;
    }
    char *sum_out = cli_sweep_sibling(out, ".summary.csv");
    char *runs_out = cli_sweep_sibling(out, ".runs.csv");
    shards s = {0};
    srl_sweep_text merged = {NULL, NULL, 0};
    cli_out o, orr, os;
    out_none(&o);
    out_none(&orr);
    out_none(&os);
    if (!sum_out || !runs_out)
        rc = cli_sys_error(CMD, "out of memory");
    else if (!strcmp(sum_out, out) || !strcmp(runs_out, out))
        rc = cli_error(CMD, "-o: %s would be its own summary or runs file: name the rows file",
                       cli_quote(q, sizeof q, out, strlen(out), 200));
    /* Check the outputs before reading anything. */
    if (!rc && !(rc = cli_out_open(&o, CMD, "-o", out)) &&
        !(rc = cli_out_need_file(&o, out, "merge writes the runs and summary files beside it")) &&
        !(rc = cli_out_open(&orr, CMD, "-o", runs_out)))
        rc = cli_out_open(&os, CMD, "-o", sum_out);
    if (!rc)
        rc = read_shards(&s, in, nin);
    if (!rc)
        rc = merge_into(&o, s.rows, nin, false, NULL);
    if (!rc)
        rc = merge_into(&orr, s.sums, nin, true, &merged);
    if (!rc)
        rc = summary_into(&os, &merged);
    if (!rc && !(rc = cli_out_commit(&o)) && !(rc = cli_out_commit(&orr)))
        rc = cli_out_commit(&os);
    cli_out_abort(&o);
    cli_out_abort(&orr);
    cli_out_abort(&os);
    shards_free(&s);
    free((char *)merged.data);
    free(sum_out);
    free(runs_out);
    free(in);
    return rc;
}
