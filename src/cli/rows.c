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
    if (w->line)
        fclose(w->line);
    free(w->line_buf);
    w->line = NULL;
    w->line_buf = NULL;
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

/* Field i of the row being written ends here: the widest so far is remembered. */
static void field_end(cli_rows *w, size_t col, long *start)
{
    const size_t n = (size_t)(ftell(w->line) - *start);
    if (n > w->wide_field) {
        w->wide_field = n;
        w->wide_col = col;
    }
    *start = ftell(w->line);
}

static int rows_row(void *ctx, const srl_value *v)
{
    cli_rows *w = ctx;
    char buf[CLI_NUM_LEN];
    if (!w->line && !(w->line = open_memstream(&w->line_buf, &w->line_len)))
        return SRL_ENOMEM;
    rewind(w->line);
    FILE *fp = w->line;
    long start = 0;
    w->wide_field = 0;
    for (size_t i = 0; i < w->naxes; i++) {
        if (i)
            fputc(',', fp);
        cli_csv_field(fp, w->axis_values ? w->axis_values[i] : "");
        field_end(w, i, &start);
    }
    for (size_t i = 0; i < w->ncol; i++) {
        if (i || w->naxes)
            fputc(',', fp);
        switch (v[i].kind) {
        case SRL_COL_NUM: fputs(cli_fmt_g17(buf, v[i].num), fp); break;
        case SRL_COL_INT: fprintf(fp, "%lld", (long long)v[i].i); break;
        default: cli_csv_field(fp, v[i].str ? v[i].str : ""); break;
        }
        field_end(w, w->naxes + i, &start);
    }
    fputc('\n', fp);
    if (fflush(fp) || ferror(fp))
        return SRL_ENOMEM;
    const size_t n = (size_t)ftell(fp);
    if (n > CLI_ROW_BYTES) { /* refused before it is written (rows.h, bounded outputs) */
        w->wide = n;
        return SRL_ERANGE;
    }
    if (fwrite(w->line_buf, 1, n, w->fp) != n)
        return SRL_EIO;
    w->rows++;
    return ferror(w->fp) ? SRL_EIO : SRL_OK;
}

void cli_rows_wide_message(const cli_rows *w, char *buf, size_t len)
{
    const char *col = w->wide_col < w->naxes ? w->axis_names[w->wide_col]
                                             : w->col_names[w->wide_col - w->naxes];
    snprintf(buf, len, "a row of %zu bytes, more than the %u one row may take (so that every "
             "output srlab writes is one it can read back; its widest field: %s, %zu bytes)",
             w->wide, CLI_ROW_BYTES, col, w->wide_field);
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
