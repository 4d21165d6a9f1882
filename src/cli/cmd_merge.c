/* src/cli/cmd_merge.c: `srlab merge SHARD.csv... -o out.csv` (docs/design.md §12).
 *
 * Joins the outputs of `srlab sweep --shard I/N` (every shard of one sweep, in any order) into
 * the files the whole sweep would have written on one machine: out.csv from the shards' rows
 * files, out.summary.csv from their summary files (found beside them, as srlab sweep names them),
 * with the statistics over seeds that no single shard could compute. The checks and the joining
 * are the library's (srl_sweep_merge); this file reads and writes files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "srlab/sweep.h"
#include "cli/sweep_cli.h"

#define CMD "merge"

static const char help_text[] =
    "usage: srlab merge SHARD.csv... -o out.csv\n"
    "\n"
    "Join the shards of a sweep (srlab sweep --shard I/N -o SHARD.csv, one per I) into the\n"
    "files one machine would have written: out.csv (rows, in run order) and out.summary.csv\n"
    "(one row per run, with mean, sd and 95% confidence interval over each grid point's seeds,\n"
    "computed here from all shards). Each shard's summary is read from beside it\n"
    "(SHARD.summary.csv). Every shard must be given once; files of different sweeps are\n"
    "refused, naming the first '#' line that differs. The date line is the earliest shard's.\n"
    "\n"
    "options:\n"
    "  -o, --output FILE   the merged rows file (required); the summary goes beside it\n"
    "\n"
    "example:\n"
    "  srlab sweep experiments/lr_sweep.ini --shard 0/2 -o lr.0.csv\n"
    "  srlab sweep experiments/lr_sweep.ini --shard 1/2 -o lr.1.csv\n"
    "  srlab merge lr.0.csv lr.1.csv -o lr.csv\n";

int cmd_merge(int argc, char **argv)
{
    static const cli_opt opts[] = {{"output", 'o', "FILE"}, {NULL, 0, NULL}};
    char q[CLI_QUOTE_LEN];
    const char *out = NULL;
    const char **in = calloc((size_t)argc + 1, sizeof *in);
    size_t nin = 0;
    if (!in)
        return cli_sys_error(CMD, "out of memory");
    cli_args a;
    cli_args_init(&a, CMD, opts, argc, argv);
    int rc = 0;
    for (int k; (k = cli_args_next(&a)) != CLI_ARGS_DONE;) {
        if (k == CLI_ARGS_HELP) {
            free(in);
            return cli_help(help_text);
        }
        if (k == CLI_ARGS_BAD) {
            free(in);
            return CLI_EXIT_USAGE;
        }
        if (k == CLI_ARGS_POSITIONAL) {
            in[nin++] = a.val;
        } else if (out) {
            free(in);
            return cli_error(CMD, "%s is given twice", a.opt);
        } else {
            out = a.val;
        }
    }
    if (!nin) {
        free(in);
        return cli_error(CMD, "no shard files (srlab merge SHARD.csv... -o out.csv)");
    }
    if (!out) {
        free(in);
        return cli_error(CMD, "no output: -o out.csv (the summary is written beside it)");
    }
    char *sum_out = cli_sweep_sibling(out, ".summary.csv");
    srl_sweep_text *rows = calloc(nin, sizeof *rows), *sums = calloc(nin, sizeof *sums);
    char **names = calloc(nin, sizeof *names);
    char *buf = NULL;
    size_t len = 0;
    cli_out o, os;
    memset(&o, 0, sizeof o);
    memset(&os, 0, sizeof os);
    if (!sum_out || !rows || !sums || !names) {
        rc = cli_sys_error(CMD, "out of memory");
        goto done;
    }
    if (!strcmp(sum_out, out)) {
        rc = cli_error(CMD, "-o: %s would be its own summary: name the rows file",
                       cli_quote(q, sizeof q, out, strlen(out), 200));
        goto done;
    }
    /* Check the outputs before reading anything. */
    if ((rc = cli_out_open(&o, CMD, "-o", out)) || (rc = cli_out_open(&os, CMD, "-o", sum_out)))
        goto done;
    for (size_t i = 0; i < nin && !rc; i++) {
        names[i] = cli_sweep_sibling(in[i], ".summary.csv");
        if (!names[i]) {
            rc = cli_sys_error(CMD, "out of memory");
            break;
        }
        char *d;
        size_t n;
        int e = cli_read_file(in[i], &d, &n);
        if (e) {
            rc = cli_error(CMD, "cannot read %s: %s",
                           cli_quote(q, sizeof q, in[i], strlen(in[i]), 200), strerror(e));
            break;
        }
        rows[i] = (srl_sweep_text){in[i], d, n};
        e = cli_read_file(names[i], &d, &n);
        if (e) {
            rc = cli_error(CMD, "cannot read %s, the summary of %s: %s",
                           cli_quote(q, sizeof q, names[i], strlen(names[i]), 200), in[i],
                           strerror(e));
            break;
        }
        sums[i] = (srl_sweep_text){names[i], d, n};
    }
    srl_err err;
    if (!rc) {
        int st = srl_sweep_merge(rows, nin, false, &buf, &len, &err);
        if (st)
            rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                  : cli_error(CMD, "%s", err.msg);
        else
            fwrite(buf, 1, len, o.fp);
        free(buf);
        buf = NULL;
    }
    if (!rc) {
        int st = srl_sweep_merge(sums, nin, true, &buf, &len, &err);
        if (st)
            rc = st == SRL_ENOMEM ? cli_sys_error(CMD, "out of memory")
                                  : cli_error(CMD, "%s", err.msg);
        else
            fwrite(buf, 1, len, os.fp);
        free(buf);
    }
    if (!rc) {
        rc = cli_out_commit(&o);
        if (!rc)
            rc = cli_out_commit(&os);
    }
done:
    cli_out_abort(&o);
    cli_out_abort(&os);
    for (size_t i = 0; i < nin; i++) {
        if (rows)
            free((char *)rows[i].data);
        if (sums)
            free((char *)sums[i].data);
        if (names)
            free(names[i]);
    }
    free(rows);
    free(sums);
    free(names);
    free(sum_out);
    free(in);
    return rc;
}
