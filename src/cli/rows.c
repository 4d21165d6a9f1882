/* src/cli/rows.c: tidy CSV rows from runs (src/cli/rows.h). */
#include "cli/rows.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "srlab/common.h"

void cli_rows_init(cli_rows *w, FILE *fp, size_t naxes, const char *const *axis_names)
{
    memset(w, 0, sizeof *w);
    w->fp = fp;
    w->naxes = naxes;
    w->axis_names = axis_names;
}

void cli_rows_set_axis_values(cli_rows *w, const char *const *axis_values)
{
    w->axis_values = axis_values;
}

void cli_rows_free(cli_rows *w)
{
    for (size_t i = 0; i < w->ncol; i++)
        free(w->col_names[i]);
    w->ncol = 0;
}

static int rows_begin(void *ctx, size_t ncol, const char *const *names, const srl_col_kind *kinds)
{
    cli_rows *w = ctx;
    if (!w->header_done) {
        if (ncol > CLI_ROWS_MAX_COLS)
            return SRL_ERANGE;
        for (size_t i = 0; i < ncol; i++) {
            size_t n = strlen(names[i]) + 1;
            w->col_names[i] = malloc(n);
            if (!w->col_names[i])
                return SRL_ENOMEM;
            memcpy(w->col_names[i], names[i], n);
            w->col_kinds[i] = kinds[i];
        }
        w->ncol = ncol;
        for (size_t i = 0; i < w->naxes; i++) {
            if (i)
                fputc(',', w->fp);
            cli_csv_field(w->fp, w->axis_names[i]);
        }
        for (size_t i = 0; i < ncol; i++) {
            if (i || w->naxes)
                fputc(',', w->fp);
            cli_csv_field(w->fp, names[i]);
        }
        fputc('\n', w->fp);
        w->header_done = true;
        return SRL_OK;
    }
    if (ncol != w->ncol)
        return SRL_EINVAL;
    for (size_t i = 0; i < ncol; i++)
        if (strcmp(names[i], w->col_names[i]) || kinds[i] != w->col_kinds[i])
            return SRL_EINVAL;
    return SRL_OK;
}

static int rows_row(void *ctx, const srl_value *v)
{
    cli_rows *w = ctx;
    char buf[CLI_NUM_LEN];
    for (size_t i = 0; i < w->naxes; i++) {
        if (i)
            fputc(',', w->fp);
        cli_csv_field(w->fp, w->axis_values ? w->axis_values[i] : "");
    }
    for (size_t i = 0; i < w->ncol; i++) {
        if (i || w->naxes)
            fputc(',', w->fp);
        switch (v[i].kind) {
        case SRL_COL_NUM: fputs(cli_fmt_g17(buf, v[i].num), w->fp); break;
        case SRL_COL_INT: fprintf(w->fp, "%lld", (long long)v[i].i); break;
        default: cli_csv_field(w->fp, v[i].str ? v[i].str : ""); break;
        }
    }
    fputc('\n', w->fp);
    w->rows++;
    return ferror(w->fp) ? SRL_EIO : SRL_OK;
}

srl_sink cli_rows_sink(cli_rows *w)
{
    srl_sink s = {rows_begin, rows_row, w};
    return s;
}

void cli_rows_preamble(FILE *fp, int argc, char **argv, const char *const *extra)
{
    fprintf(fp, "# srlab %s\n# command: ", srl_version());
    cli_fprint_command(fp, argc, argv);
    fputc('\n', fp);
    for (; extra && *extra; extra++)
        fprintf(fp, "# %s\n", *extra);
}
