/* src/cli/cmd_merge.c: `srlab merge SHARD.csv... -o out.csv` (docs/design.md §12).
 *
 * Joins the outputs of `srlab sweep --shard I/N` (every shard of one sweep, in any order) into
 * the files the whole sweep would have written on one machine: out.csv from the shards' rows
 * files, out.runs.csv from their runs files (found beside them, as srlab sweep names them), and
 * out.summary.csv from the merged runs, with the statistics over seeds that no single shard
 * could compute. The checks, the joining and the summary are the library's (srl_sweep_merge,
 * srl_sweep_summary); this file reads and writes files: arguments, the output set checked and
 * locked (src/cli/set.h), the shards read and checked, each kind merged, the summary, all three
 * committed as one transaction. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "srlab/sweep.h"
#include "cli/host.h" /* cli_read_file */
#include "cli/set.h"
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
    "The three files are one set (as srlab sweep writes them): they replace the old ones as\n"
    "one transaction, after every shard is read and checked, under the lock of srlab sweep\n"
    "(a second merge or sweep into the same output is refused, exit 2).\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the merged rows file (required); the runs and summary files go\n"
    "                      beside it. -o - or -o /dev/stdout: the merged rows to standard\n"
    "                      output and no other file (every shard is still checked)\n"
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

/* A shard is a set of its own (src/cli/set.h): its rows and runs files, as read, carry the stamp
 * of every file of its set beside them (so also each other's, unless a commit came between the
 * two reads). */
static int check_shard_sets(const shards *s)
{
    int rc = 0;
    for (size_t i = 0; i < s->n && !rc; i++)
        if (!(rc = cli_set_check(CMD, "shard", s->rows[i].name, s->rows[i].data, s->rows[i].len)))
            rc = cli_set_check(CMD, "shard", s->sums[i].name, s->sums[i].data, s->sums[i].len);
    return rc;
}

/* Merge the files (rows or runs) into *out (malloc'd). */
static int merge_text(const srl_sweep_text *files, size_t n, bool runs, srl_sweep_text *out)
{
    char *buf = NULL;
    size_t len = 0;
    srl_err err;
    int st = srl_sweep_merge(files, n, runs, &buf, &len, &err);
    if (st)
        return st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                : cli_error(CMD, "%s", err.msg);
    *out = (srl_sweep_text){runs ? "the merged runs" : "the merged rows", buf, len};
    return 0;
}

/* The summary of the merged runs into *out (malloc'd). */
static int summary_text(const srl_sweep_text *runs, srl_sweep_text *out)
{
    char *buf = NULL;
    size_t len = 0;
    srl_err err;
    int st = srl_sweep_summary(runs, &buf, &len, &err);
    if (st)
        return st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                : cli_error(CMD, "summary: %s", err.msg);
    *out = (srl_sweep_text){"the summary", buf, len};
    return 0;
}

/* The output set (src/cli/set.h): its paths checked, its lock taken (a commit an interrupted
 * srlab left half done completed), and no unfinished sweep's journal in it. */
static int take_output(cli_set *set, const char *out)
{
    char q[CLI_QUOTE_LEN];
    struct stat sb;
    int rc = cli_set_init(set, CMD, out);
    if (!rc)
        rc = cli_set_check_paths(set, true);
    if (!rc)
        rc = cli_set_lock(set);
    if (!rc && stat(set->journal, &sb) == 0 && sb.st_size > 0)
        rc = cli_error(CMD, "%s holds the runs of an unfinished sweep into this output: finish it "
                       "(srlab sweep ... --resume -o %s) or remove it before merging into it",
                       cli_quote(q, sizeof q, set->journal, strlen(set->journal), 200), out);
    return rc;
}

/* arguments -> the output set checked and locked -> shards read and checked -> srl_sweep_merge
 * twice and the summary, in memory -> one commit of the three files (or the rows to standard
 * output): nothing is replaced before every input is read and proved complete. */
int cmd_merge(int argc, char **argv)
{
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
    const bool to_stdout = cli_out_is_stdout(out); /* -o - and -o /dev/stdout: the rows alone */
    shards s = {0};
    srl_sweep_text rows = {NULL, NULL, 0}, runs = rows, sums = rows;
    cli_set set = {.lock = {.fd = -1}};
    cli_out o;
    memset(&o, 0, sizeof o);
    o.slot = -1;
    if (to_stdout)
        rc = cli_out_open(&o, CMD, "-o", out);
    else
        rc = take_output(&set, out);
    if (!rc)
        rc = read_shards(&s, in, nin);
    if (!rc)
        rc = check_shard_sets(&s);
    if (!rc)
        rc = merge_text(s.rows, nin, false, &rows);
    if (!rc)
        rc = merge_text(s.sums, nin, true, &runs);
    if (!rc)
        rc = summary_text(&runs, &sums);
    if (!rc && to_stdout) {
        if (rows.len && fwrite(rows.data, 1, rows.len, o.fp) != rows.len)
            rc = cli_sys_error(CMD, "out of memory");
        if (!rc)
            rc = cli_out_commit(&o);
    } else if (!rc) {
        rc = cli_set_commit(&set, rows.data, rows.len, runs.data, runs.len, sums.data, sums.len);
    }
    cli_out_abort(&o);
    cli_set_free(&set);
    shards_free(&s);
    free((char *)rows.data);
    free((char *)runs.data);
    free((char *)sums.data);
    free(in);
    return rc;
}
