/* src/cli/cmd_formats.c: `srlab formats [FMT...] [--csv]`: the parameters and ranges of the
 * format presets (docs/design.md §2), or of the formats named, as an aligned table or as CSV.
 * Every value shown is computed by the library (srl_format_preset, srl_format_parse); this file
 * only lays them out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char help[] =
    "usage: srlab formats [FMT...] [--csv]\n"
    "\n"
    "The binary floating-point formats srlab emulates: the presets and the block formats, or\n"
    "the formats FMT given (preset names, custom specs p=P,emax=E[,emin=E][,subnormals=on|off]\n"
    "[,inf=on|off][,nan=on|off][,saturate=on|off], block formats mxfp8, mxfp8-e5m2, mxfp6,\n"
    "mxfp6-e2m3, mxfp4, mxint8, nvfp4 [,block=B]; a preset also answers to the names of\n"
    "PyTorch, NumPy and CPFloat, in any case: bfloat16, half, float8_e4m3fn, E4M3, ...).\n"
    "Every format is shown by its one name: the preset's when its parameters are a preset's,\n"
    "else its canonical spec. For each format: the precision p (significand bits, hidden bit\n"
    "included), the normal exponent range emin..emax, the encoding width, whether it has\n"
    "subnormals and infinities and whether overflow saturates, the unit roundoff u = 2^-p, and\n"
    "the smallest subnormal, smallest normal and largest finite values (17 significant digits\n"
    "and the exact hex float); for each block format its element format, block size and scale.\n"
    "With --csv and no FMT only the element formats (one table); block formats named with\n"
    "element formats give a second table after an empty line.\n"
    "\n"
    "options:\n"
    "  --csv        machine-readable CSV with a header (values to 17 significant digits, which\n"
    "               read back exactly as binary64)\n"
    "  -h, --help   this help\n"
    "\n"
    "examples:\n"
    "  srlab formats\n"
    "  srlab formats --csv\n"
    "  srlab formats bf16 p=8,emax=127,subnormals=off\n";

/* Largest finite the exponent range would give if the all-ones pattern were a number. */
static double full_xmax(const srl_format *f)
{
    return ldexp(2.0 - ldexp(1.0, 1 - f->p), f->emax);
}

static void write_csv(FILE *fp, const srl_format *fs, size_t n)
{
    char a[CLI_NUM_LEN], b[CLI_NUM_LEN], c[CLI_NUM_LEN], d[CLI_NUM_LEN];
    fputs("name,p,emin,emax,width,subnormals,inf,saturate,u,smallest_subnormal,smallest_normal,"
          "largest_finite,nan\n",
          fp);
    for (size_t k = 0; k < n; k++) {
        const srl_format *f = &fs[k];
        cli_csv_field(fp, f->name);
        fprintf(fp, ",%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", f->p, f->emin, f->emax, f->width,
                f->subnormals ? "on" : "off", f->inf ? "on" : "off", f->saturate ? "on" : "off",
                cli_fmt_g17(a, f->u), cli_fmt_g17(b, f->xsub), cli_fmt_g17(c, f->xmin),
                cli_fmt_g17(d, f->xmax), f->nan ? "on" : "off");
    }
}

/* "3.3895313892515355e+38 (0x1.fep+127)" */
static void both(char *buf, size_t len, double x)
{
    char d[CLI_NUM_LEN], h[CLI_NUM_LEN];
    snprintf(buf, len, "%s (%s)", cli_fmt_g17(d, x), cli_fmt_hexn(h, x));
}

/* Notes on the conventions a table cannot show: no infinities, saturation, no subnormals. */
static void write_notes(FILE *fp, const srl_format *fs, size_t n)
{
    bool first = true;
    for (size_t k = 0; k < n; k++) {
        const srl_format *f = &fs[k];
        char a[CLI_NUM_LEN], b[CLI_NUM_LEN];
        if (f->inf && !f->saturate && f->subnormals)
            continue;
        if (first)
            fputc('\n', fp);
        first = false;
        fprintf(fp, "%s:", f->name);
        if (!f->inf && !f->nan) {
            fprintf(fp, " no infinities and no NaN (OCP FP6, FP4, the MX INT8 element): every "
                        "pattern is a number; overflow and infinite inputs saturate to +-%s, a NaN "
                        "input gives NaN, which only a block's scale can carry (srlab/mx.h)",
                    cli_fmt_short(a, f->xmax));
        } else if (!f->inf) {
            if (f->xmax < full_xmax(f))
                fprintf(fp, " no infinities (the OCP FP8 convention): only the pattern S.%.*s.%.*s"
                            " is NaN, which gives up %s, so the largest finite is %s;",
                        f->ebits, "111111111111111111111111111111", f->p - 1,
                        "1111111111111111111111111111111111111111111111111111",
                        cli_fmt_short(a, full_xmax(f)), cli_fmt_short(b, f->xmax));
            else
                fprintf(fp, " no infinities: the all-ones pattern is NaN;");
            if (f->saturate)
                fprintf(fp, " overflow and infinite inputs saturate to +-%s", cli_fmt_short(a, f->xmax));
            else
                fprintf(fp, " overflow and infinite inputs give NaN");
        } else if (f->saturate) {
            fprintf(fp, " saturating: overflow and infinite inputs clamp to +-%s",
                    cli_fmt_short(a, f->xmax));
        }
        if (!f->subnormals)
            fprintf(fp, "%s no subnormals: between 0 and %s there is nothing",
                    (!f->inf || f->saturate) ? ";" : "", cli_fmt_short(a, f->xmin));
        fputs(".\n", fp);
    }
}

/* The block formats (srlab/mx.h): element, block size, scale. */
static void write_mx(FILE *fp, const srl_mx_format *ms, size_t n, bool csv)
{
    if (csv) {
        fputs("block_format,element,block,scale,element_largest\n", fp);
    } else {
        fputs("\nblock formats (srlab round -f NAME explains a block; docs/mx.md)\n", fp);
        fprintf(fp, "%-12s  %-16s  %5s  %-36s  %s\n", "format", "element", "block", "scale",
                "element largest");
    }
    for (size_t k = 0; k < n; k++) {
        const srl_mx_format *m = &ms[k];
        char a[CLI_NUM_LEN];
        const char *sc = m->scale == SRL_MX_E8M0 ? "E8M0 2^k per block"
                                                 : "E4M3 per block x binary32 per tensor";
        if (csv) {
            cli_csv_field(fp, m->name);
            fputc(',', fp);
            cli_csv_field(fp, m->elem_name);
            fprintf(fp, ",%d,%s,%s\n", m->block,
                    m->scale == SRL_MX_E8M0 ? "e8m0" : "e4m3*fp32", cli_fmt_g17(a, m->elem.xmax));
        } else {
            fprintf(fp, "%-12s  %-16s  %5d  %-36s  %s\n", m->name, m->elem_name, m->block,
                    sc, cli_fmt_short(a, m->elem.xmax));
        }
    }
}

#define CELL 64

static int write_table(FILE *fp, const srl_format *fs, size_t n)
{
    /* Column widths: the name column fits the longest name; the value columns their widest. */
    size_t wname = strlen("format");
    size_t wv[4] = {strlen("u = 2^-p"), strlen("smallest subnormal"), strlen("smallest normal"),
                    strlen("largest finite")};
    char (*cell)[4][CELL] = malloc(n ? n * sizeof *cell : 1);
    if (!cell)
        return -1;
    for (size_t k = 0; k < n; k++) {
        const srl_format *f = &fs[k];
        if (strlen(f->name) > wname)
            wname = strlen(f->name);
        both(cell[k][0], CELL, f->u);
        both(cell[k][1], CELL, f->xsub);
        both(cell[k][2], CELL, f->xmin);
        both(cell[k][3], CELL, f->xmax);
        for (int j = 0; j < 4; j++)
            if (strlen(cell[k][j]) > wv[j])
                wv[j] = strlen(cell[k][j]);
    }
    int W = (int)wname;
    fprintf(fp, "%-*s  %3s  %6s  %5s  %5s  %-10s  %-3s  %-8s  %s\n", W, "format", "p", "emin",
            "emax", "width", "subnormals", "inf", "saturate", "u = 2^-p");
    for (size_t k = 0; k < n; k++) {
        const srl_format *f = &fs[k];
        fprintf(fp, "%-*s  %3d  %6d  %5d  %5d  %-10s  %-3s  %-8s  %s\n", W, f->name, f->p, f->emin,
                f->emax, f->width, f->subnormals ? "yes" : "no", f->inf ? "yes" : "no",
                f->saturate ? "yes" : "no", cell[k][0]);
    }
    fputc('\n', fp);
    fprintf(fp, "%-*s  %-*s  %-*s  %s\n", W, "format", (int)wv[1], "smallest subnormal",
            (int)wv[2], "smallest normal", "largest finite");
    for (size_t k = 0; k < n; k++)
        fprintf(fp, "%-*s  %-*s  %-*s  %s\n", W, fs[k].name, (int)wv[1], cell[k][1], (int)wv[2],
                cell[k][2], cell[k][3]);
    free(cell);
    write_notes(fp, fs, n);
    return 0;
}

int cmd_formats(int argc, char **argv)
{
    enum { O_CSV };
    static const cli_opt opts[] = {[O_CSV] = {"csv", 0, NULL}, {NULL, 0, NULL}};
    const char *cmd = "formats";
    bool csv = false;
    size_t n = 0, nm = 0;
    srl_format *fs = malloc(((size_t)argc + srl_format_preset_count()) * sizeof *fs);
    srl_mx_format *ms = malloc(((size_t)argc + srl_mx_preset_count()) * sizeof *ms);
    if (!fs || !ms) {
        free(fs), free(ms);
        return cli_sys_error(cmd, "out of memory");
    }
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    int k, rc = 0;
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: free(fs), free(ms); return cli_help(help);
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL:
            rc = srl_mx_is_name(a.val) ? cli_parse_mx(cmd, NULL, a.val, &ms[nm++])
                                       : cli_parse_format(cmd, NULL, a.val, &fs[n++]);
            break;
        case O_CSV: csv = true; break;
        }
    }
    if (rc) {
        free(fs), free(ms);
        return rc;
    }
    if (n == 0 && nm == 0) {
        for (size_t i = 0; i < srl_format_preset_count(); i++)
            fs[n++] = *srl_format_preset(i);
        for (size_t i = 0; !csv && i < srl_mx_preset_count(); i++) /* CSV: one table */
            ms[nm++] = *srl_mx_preset(i);
    }
    cli_out out;
    if ((rc = cli_out_open(&out, cmd, NULL, NULL))) {
        free(fs), free(ms);
        return rc;
    }
    if (csv) {
        if (n)
            write_csv(out.fp, fs, n);
        if (n && nm)
            fputc('\n', out.fp);
        if (nm)
            write_mx(out.fp, ms, nm, true);
    } else {
        if (n && write_table(out.fp, fs, n) != 0) {
            free(fs), free(ms);
            cli_out_abort(&out);
            return cli_sys_error(cmd, "out of memory");
        }
        if (nm)
            write_mx(out.fp, ms, nm, false);
    }
    free(ms);
    free(fs);
    return cli_out_commit(&out);
}
