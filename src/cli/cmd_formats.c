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
    "The binary floating-point formats srlab emulates: the presets, or the formats FMT given\n"
    "(preset names or custom specs p=P,emax=E[,emin=E][,subnormals=on|off][,inf=on|off]\n"
    "[,saturate=on|off]; a preset also answers to the names of PyTorch, NumPy and CPFloat, in\n"
    "any case: bfloat16, half, float16, float8_e4m3fn, E4M3, ...). Every format is shown by\n"
    "its one name: the preset's when its parameters are a preset's, else its canonical spec.\n"
    "For each: the precision p (significand bits, hidden bit included), the normal exponent\n"
    "range emin..emax, the encoding width, whether it has subnormals and infinities and\n"
    "whether overflow saturates, the unit roundoff u = 2^-p, and the smallest subnormal,\n"
    "smallest normal and largest finite values (17 significant digits and the exact\n"
    "hex float).\n"
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
          "largest_finite\n",
          fp);
    for (size_t k = 0; k < n; k++) {
        const srl_format *f = &fs[k];
        cli_csv_field(fp, f->name);
        fprintf(fp, ",%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s\n", f->p, f->emin, f->emax, f->width,
                f->subnormals ? "on" : "off", f->inf ? "on" : "off", f->saturate ? "on" : "off",
                cli_fmt_g17(a, f->u), cli_fmt_g17(b, f->xsub), cli_fmt_g17(c, f->xmin),
                cli_fmt_g17(d, f->xmax));
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
        if (!f->inf) {
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
    size_t n = 0;
    srl_format *fs = malloc(((size_t)argc + srl_format_preset_count()) * sizeof *fs);
    if (!fs)
        return cli_sys_error(cmd, "out of memory");
    cli_args a;
    cli_args_init(&a, cmd, opts, argc, argv);
    int k, rc = 0;
    while (!rc && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        switch (k) {
        case CLI_ARGS_HELP: free(fs); return cli_help(help);
        case CLI_ARGS_BAD: rc = CLI_EXIT_USAGE; break;
        case CLI_ARGS_POSITIONAL: rc = cli_parse_format(cmd, NULL, a.val, &fs[n++]); break;
        case O_CSV: csv = true; break;
        }
    }
    if (rc) {
        free(fs);
        return rc;
    }
    if (n == 0)
        for (size_t i = 0; i < srl_format_preset_count(); i++)
            fs[n++] = *srl_format_preset(i);
    cli_out out;
    if ((rc = cli_out_open(&out, cmd, NULL, NULL))) {
        free(fs);
        return rc;
    }
    if (csv)
        write_csv(out.fp, fs, n);
    else if (write_table(out.fp, fs, n) != 0) {
        free(fs);
        cli_out_abort(&out);
        return cli_sys_error(cmd, "out of memory");
    }
    free(fs);
    return cli_out_commit(&out);
}
