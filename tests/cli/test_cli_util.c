/* tests/cli/test_cli_util.c: the command-line framework's helpers (src/cli/cli_util.c) against
 * their contracts in src/cli/cli.h: RFC 4180 fields, exact decimals (checked with MPFR: the
 * printed decimal must read back at 53 bits with ternary 0 and equal x, so it *is* x), hex and
 * shortest forms that read back, strict parsers, the option parser, messages and quoting, checked
 * writes.
 * Messages the parsers print on stderr are expected (they name the rejected inputs). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "cli/cli.h"
#include "srlab/rows.h"
#include "srlab/rng.h"
#include "testutil.h"

/* Run fn(fp) into a memory stream and return what it wrote (caller frees). */
static char *capture_csv(const char *field)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    cli_csv_field(fp, field);
    fclose(fp);
    return buf;
}

static void test_csv(void)
{
    long before = srl_test_failures;
    static const char *cases[][2] = {
        {"bf16", "bf16"},
        {"p=8,emax=127", "\"p=8,emax=127\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"a\nb", "\"a\nb\""},
        {"a\rb", "\"a\rb\""},
        {"", ""},
        {"\"", "\"\"\"\""},
        /* OWASP's rule: text a spreadsheet would take for a formula is guarded and quoted */
        {"=1+1", "\"'=1+1\""},
        {"+cmd", "\"'+cmd\""},
        {"-x", "\"'-x\""},
        {"@SUM(A1)", "\"'@SUM(A1)\""},
        {"\t=x", "\"'\t=x\""},
        {"'quoted", "\"''quoted\""},
        {"=a,\"b\"", "\"'=a,\"\"b\"\"\""},
        /* numbers are numbers */
        {"-0.5", "-0.5"},
        {"-inf", "-inf"},
        {"+3e-7", "+3e-7"},
        {"a=b", "a=b"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *got = capture_csv(cases[k][0]);
        CHECK(strcmp(got, cases[k][1]) == 0, "csv field of [%s]: got [%s], expected [%s]",
              cases[k][0], got, cases[k][1]);
        free(got);
    }
    /* what srl_csv_field writes, srl_csv_value reads back as it was */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *got = capture_csv(cases[k][0]), back[64];
        const size_t n = srl_csv_value(back, sizeof back, got, strlen(got));
        CHECK(n == strlen(cases[k][0]) && !strcmp(back, cases[k][0]), "[%s] reads back as [%s]",
              got, back);
        CHECK(cli_csv_width(cases[k][0]) == strlen(got), "width of [%s]", cases[k][0]);
        free(got);
    }
    CHECK(srl_csv_value(NULL, 0, "\"ab", 3) == SIZE_MAX && srl_csv_value(NULL, 0, "a\"b", 3) == SIZE_MAX &&
              srl_csv_value(NULL, 0, "\"a\"b\"", 5) == SIZE_MAX,
          "not fields");
    GROUP("cli_csv_field quotes per RFC 4180 and guards formulas per OWASP; read back", before);
}

/* The decimal string s is exactly x: it reads back at 53 bits with ternary 0 and equals x. */
static int decimal_is_exactly(const char *s, double x)
{
    mpfr_t t;
    mpfr_init2(t, 53);
    char *end;
    mpfr_exp_t emin = mpfr_get_emin();
    mpfr_set_emin(mpfr_get_emin_min());
    int tern = mpfr_strtofr(t, s, &end, 10, MPFR_RNDN);
    int ok = *end == 0 && tern == 0 && mpfr_cmp_d(t, x) == 0;
    mpfr_set_emin(emin);
    mpfr_clear(t);
    return ok;
}

static void test_formatting(void)
{
    long before = srl_test_failures;
    char *ex = malloc(CLI_EXACT_LEN);
    char h[CLI_NUM_LEN], s[CLI_NUM_LEN], g[CLI_NUM_LEN];
    srl_rng r;
    srl_rng_init(&r, SRL_RNG_PCG64, 20240601, 7);
    const double fixed[] = {0.1, 1.00390625, 0x1p-1074, 0x1.fffffffffffffp+1023, 0x1p-1022,
                            0x0.fffffffffffffp-1022, 1e21, 1e-5, 9.999999999999999e20, 123456789,
                            -0.0, 0.0, 1, -2.5, 0x1.999999999999ap-4, 65504, 3.3895313892515355e+38};
    const size_t nfixed = sizeof fixed / sizeof fixed[0];
    for (size_t k = 0; k < nfixed + 20000; k++) {
        double x;
        if (k < nfixed) {
            x = fixed[k];
        } else { /* random bit patterns: every binade, subnormals, both signs */
            uint64_t b = srl_rng_next(&r);
            memcpy(&x, &b, sizeof x);
            if (!isfinite(x))
                continue;
        }
        cli_fmt_exact(ex, x);
        CHECK(decimal_is_exactly(ex, x), "exact decimal of %a is not exact: %s", x, ex);
        const char *mant_end = strchr(ex, 'e') ? strchr(ex, 'e') : ex + strlen(ex);
        CHECK(!strchr(ex, '.') || (mant_end[-1] != '0' && mant_end[-1] != '.'),
              "exact decimal of %a has trailing zeros: %s", x, ex);
        cli_fmt_hexn(h, x);
        CHECK(strtod(h, NULL) == x && signbit(strtod(h, NULL)) == signbit(x),
              "hexn of %a reads back as %a (%s)", x, strtod(h, NULL), h);
        CHECK(x == 0 || strstr(h, "0x1") != NULL, "hexn of %a not normalised: %s", x, h);
        cli_fmt_short(s, x);
        CHECK(strtod(s, NULL) == x, "short of %a reads back as %a (%s)", x, strtod(s, NULL), s);
        cli_fmt_g17(g, x);
        CHECK(strtod(g, NULL) == x, "g17 of %a reads back as %a", x, strtod(g, NULL));
        cli_fmt_hex(h, x);
        CHECK(strtod(h, NULL) == x, "hex of %a reads back as %a", x, strtod(h, NULL));
    }
    CHECK(strcmp(cli_fmt_exact(ex, 0.1), "0.1000000000000000055511151231257827021181583404541015625") == 0,
          "0.1: %s", ex);
    CHECK(strcmp(cli_fmt_exact(ex, 1.0), "1") == 0, "1: %s", ex);
    CHECK(strcmp(cli_fmt_exact(ex, 1e300), "1.00000000000000005250476025520442024870446858110815915491585411551180245798890819578637137508044786404370444383288387817694252323536043057564479218478670698284838720092657580373783023379478809005936895323497079994508111903896764088007465274278014249457925878882005684283811566947219638686545940054016e+300") == 0,
          "1e300: %s", ex);
    CHECK(strcmp(cli_fmt_exact(ex, -0.0), "-0") == 0, "-0: %s", ex);
    CHECK(strcmp(cli_fmt_exact(ex, INFINITY), "inf") == 0, "inf: %s", ex);
    CHECK(strcmp(cli_fmt_hexn(h, 0x1p-1074), "0x1p-1074") == 0, "hexn 2^-1074: %s", h);
    CHECK(strcmp(cli_fmt_hex(h, -INFINITY), "-inf") == 0, "hex -inf: %s", h);
    CHECK(strcmp(cli_fmt_short(s, 480), "480") == 0, "short 480: %s", s);
    CHECK(strcmp(cli_fmt_short(s, 0.1), "0.1") == 0, "short 0.1: %s", s);
    CHECK(strcmp(cli_fmt_short(s, 1e300), "1e+300") == 0, "short 1e300: %s", s);
    free(ex);
    GROUP("number formatting: exact decimals (MPFR-checked), hex, shortest, %.17g", before);
}

static void test_parsers(void)
{
    long before = srl_test_failures;
    uint64_t u;
    long long i;
    double d;
    fputs("(the following messages are expected)\n", stderr);
    CHECK(cli_parse_count("t", "--n", "12", 1, 100, &u) == 0 && u == 12, "count 12");
    CHECK(cli_parse_count("t", "--n", "100", 1, 100, &u) == 0 && u == 100, "count 100");
    CHECK(cli_parse_count("t", "--n", "101", 1, 100, &u) == CLI_EXIT_USAGE, "count 101");
    CHECK(cli_parse_count("t", "--n", "0", 1, 100, &u) == CLI_EXIT_USAGE, "count 0");
    CHECK(cli_parse_count("t", "--n", "0", 0, 100, &u) == 0 && u == 0, "count 0 allowed");
    CHECK(cli_parse_count("t", "--n", "-3", 1, 100, &u) == CLI_EXIT_USAGE, "count -3");
    /* An integer written with an exponent is accepted when it is exactly an integer. */
    CHECK(cli_parse_count("t", "--n", "1e2", 1, 1000, &u) == 0 && u == 100, "count 1e2");
    CHECK(cli_parse_count("t", "--n", "2.5e1", 1, 1000, &u) == 0 && u == 25, "count 2.5e1");
    CHECK(cli_parse_count("t", "--n", "2.5e0", 1, 1000, &u) == CLI_EXIT_USAGE, "count 2.5e0");
    CHECK(cli_parse_count("t", "--n", "1e-1", 0, 1000, &u) == CLI_EXIT_USAGE, "count 1e-1");
    CHECK(cli_parse_count("t", "--n", "1e4", 1, 1000, &u) == CLI_EXIT_USAGE, "count 1e4 > max");
    CHECK(cli_parse_count("t", "--n", "1e", 1, 1000, &u) == CLI_EXIT_USAGE, "count 1e");
    CHECK(cli_parse_count("t", "--n", "1e99", 1, UINT64_MAX, &u) == CLI_EXIT_USAGE, "count 1e99");
    CHECK(cli_parse_int("t", "--e", "-2e2", -1074, 1023, &i) == 0 && i == -200, "int -2e2");
    CHECK(cli_parse_count("t", "--n", " 5", 1, 100, &u) == CLI_EXIT_USAGE, "count ' 5'");
    CHECK(cli_parse_count("t", "--n", "", 1, 100, &u) == CLI_EXIT_USAGE, "count ''");
    CHECK(cli_parse_count("t", "--n", "99999999999999999999999", 1, UINT64_MAX, &u) == CLI_EXIT_USAGE,
          "count beyond 2^64");
    CHECK(cli_parse_count("t", "--n", "18446744073709551615", 1, UINT64_MAX, &u) == 0 &&
              u == UINT64_MAX, "count 2^64-1");
    CHECK(cli_parse_int("t", "--e", "-1074", -1074, 1023, &i) == 0 && i == -1074, "int -1074");
    CHECK(cli_parse_int("t", "--e", "+7", -10, 10, &i) == 0 && i == 7, "int +7");
    CHECK(cli_parse_int("t", "--e", "-1075", -1074, 1023, &i) == CLI_EXIT_USAGE, "int -1075");
    CHECK(cli_parse_int("t", "--e", "-9223372036854775808", INT64_MIN, INT64_MAX, &i) == 0 &&
              i == INT64_MIN, "int min");
    CHECK(cli_parse_int("t", "--e", "9223372036854775808", INT64_MIN, INT64_MAX, &i) ==
              CLI_EXIT_USAGE, "int max+1");
    CHECK(cli_parse_int("t", "--e", "-", -10, 10, &i) == CLI_EXIT_USAGE, "int -");
    CHECK(cli_parse_seed("t", "--seed", "0xFFFFFFFFFFFFFFFF", &u) == 0 && u == UINT64_MAX, "seed hex max");
    CHECK(cli_parse_seed("t", "--seed", "0x10000000000000000", &u) == CLI_EXIT_USAGE, "seed hex 2^64");
    CHECK(cli_parse_seed("t", "--seed", "0x", &u) == CLI_EXIT_USAGE, "seed 0x");
    CHECK(cli_parse_seed("t", "--seed", "42", &u) == 0 && u == 42, "seed 42");
    CHECK(cli_parse_seed("t", "--seed", "-1", &u) == CLI_EXIT_USAGE, "seed -1");
    CHECK(cli_parse_real("t", "--lr", "1e-3", &d) == 0 && d == 1e-3, "real 1e-3");
    CHECK(cli_parse_real("t", "--lr", "0x1p-3", &d) == 0 && d == 0.125, "real hex");
    CHECK(cli_parse_real("t", "--lr", "inf", &d) == CLI_EXIT_USAGE, "real inf");
    CHECK(cli_parse_real("t", "--lr", "1e999", &d) == CLI_EXIT_USAGE, "real 1e999");
    CHECK(cli_parse_real("t", "--lr", "1,5", &d) == CLI_EXIT_USAGE, "real 1,5");
    CHECK(cli_parse_number("t", NULL, "-nan", &d) == 0 && isnan(d), "number -nan");
    CHECK(cli_parse_number("t", NULL, "1e999", &d) == 0 && isinf(d), "number 1e999");
    CHECK(cli_parse_number("t", NULL, "0x1.8p-3 ", &d) == CLI_EXIT_USAGE, "number trailing space");
    srl_rng_kind kind;
    CHECK(cli_parse_rng_kind("t", "--rng", "pcg64", &kind) == 0 && kind == SRL_RNG_PCG64, "rng");
    CHECK(cli_parse_rng_kind("t", "--rng", "PCG64", &kind) == CLI_EXIT_USAGE, "rng case");

    char gap[CLI_NUM_LEN];
    CHECK(cli_number_exact("0.5", 0.5, gap) == 1, "0.5 exact");
    CHECK(cli_number_exact("0.1", 0.1, gap) == 0 && strcmp(gap, "+5.55e-18") == 0, "0.1: %s", gap);
    CHECK(cli_number_exact("0x1.0000000000001p0", 0x1.0000000000001p0, gap) == 1, "hex 53 bits");
    CHECK(cli_number_exact("0x1.00000000000008p0", 1.0, gap) == 0, "hex 54 bits");
    CHECK(cli_number_exact("0x1.8p-1074", 0x1p-1073, gap) == 0, "below the subnormal grid");
    CHECK(cli_number_exact("1e999", INFINITY, gap) == 0 && gap[0] == 0, "overflow");
    CHECK(cli_number_exact("-Infinity", -INFINITY, gap) == 1, "-Infinity");
    CHECK(cli_number_exact("1e-400", 0.0, gap) == 0, "underflow");
    CHECK(cli_number_exact("4.940656458412465441765687928682213723650598026143247644255856825006755072702087518652998363616359923797965646954457177309266567103559397963987747960107818781263007131903114045278458171678489821036887186360569987307230500063874091535649843873124733972731696151400317153853980741262385655911710266585566867681870395603106249319452715914924553293054565444011274801297099995419319894090804165633245247571478690147267801593552386115501348035264934720193790268107107491703332226844753335720832431936092382893458368060106011506169809753078342277318329247904982524730776375927247874656084778203734469699533647017972677717585125660551199131504891101451037862738167250955837389733598993664809941164205702637090279242767544565229087538682506419718265533447265625e-324", 0x1p-1074, gap) == 1,
          "exact decimal of 2^-1074");
    GROUP("strict parsers and exactness of decimal text", before);
}

static int run_args(int argc, char **argv, int *codes, const char **vals, int max)
{
    static const cli_opt opts[] = {{"format", 'f', "FMT"}, {"csv", 0, NULL}, {"seed", 0, "S"},
                                   {"set", 's', "V..."}, {NULL, 0, NULL}};
    cli_args a;
    cli_args_init(&a, "t", opts, argc, argv);
    int n = 0, k;
    while (n < max && (k = cli_args_next(&a)) != CLI_ARGS_DONE) {
        codes[n] = k;
        vals[n++] = a.val;
        if (k == CLI_ARGS_BAD || k == CLI_ARGS_HELP)
            break;
    }
    return n;
}

static void test_args(void)
{
    long before = srl_test_failures;
    int codes[16];
    const char *vals[16];
    {
        char *argv[] = {"t", "-f", "bf16", "--csv", "--seed=7", "-0.5", "-inf", "--set", "-3",
                        "-sfp16", "x", "--", "--csv", "-f", NULL};
        int n = run_args(14, argv, codes, vals, 16);
        const int want[] = {0, 1, 2, CLI_ARGS_POSITIONAL, CLI_ARGS_POSITIONAL, 3, 3,
                            CLI_ARGS_POSITIONAL, CLI_ARGS_POSITIONAL, CLI_ARGS_POSITIONAL};
        const char *wval[] = {"bf16", NULL, "7", "-0.5", "-inf", "-3", "fp16", "x", "--csv", "-f"};
        CHECK(n == 10, "parsed %d items", n);
        for (int k = 0; k < n && k < 10; k++) {
            CHECK(codes[k] == want[k], "item %d: code %d, expected %d", k, codes[k], want[k]);
            CHECK((vals[k] == NULL && wval[k] == NULL) ||
                      (vals[k] && wval[k] && strcmp(vals[k], wval[k]) == 0),
                  "item %d: value %s, expected %s", k, vals[k] ? vals[k] : "(null)",
                  wval[k] ? wval[k] : "(null)");
        }
    }
    {
        char *argv[] = {"t", "--seed", NULL};
        CHECK(run_args(2, argv, codes, vals, 16) == 1 && codes[0] == CLI_ARGS_BAD, "missing value");
        char *argv2[] = {"t", "-f", "--csv", NULL};
        CHECK(run_args(3, argv2, codes, vals, 16) == 1 && codes[0] == CLI_ARGS_BAD,
              "option as a value");
        char *argv3[] = {"t", "--csv=1", NULL};
        CHECK(run_args(2, argv3, codes, vals, 16) == 1 && codes[0] == CLI_ARGS_BAD, "flag value");
        char *argv4[] = {"t", "--nope", NULL};
        CHECK(run_args(2, argv4, codes, vals, 16) == 1 && codes[0] == CLI_ARGS_BAD, "unknown");
        char *argv5[] = {"t", "x", "-h", NULL};
        CHECK(run_args(3, argv5, codes, vals, 16) == 2 && codes[1] == CLI_ARGS_HELP, "-h");
        char *argv6[] = {"t", "--help", NULL};
        CHECK(run_args(2, argv6, codes, vals, 16) == 1 && codes[0] == CLI_ARGS_HELP, "--help");
        char *argv7[] = {"t", "-f", "-", NULL};
        CHECK(run_args(3, argv7, codes, vals, 16) == 1 && codes[0] == 0 && strcmp(vals[0], "-") == 0,
              "'-' is a value");
        char *argv8[] = {"t", "--seed=", NULL};
        CHECK(run_args(2, argv8, codes, vals, 16) == 1 && codes[0] == 2 && strcmp(vals[0], "") == 0,
              "empty attached value");
        /* the repeated-option rule: once each, by either name, flags too; "..." repeats */
        char *argv9[] = {"t", "-f", "a", "--format=b", NULL};
        CHECK(run_args(4, argv9, codes, vals, 16) == 2 && codes[1] == CLI_ARGS_BAD,
              "-f then --format");
        char *argv10[] = {"t", "--csv", "x", "--csv", NULL};
        CHECK(run_args(4, argv10, codes, vals, 16) == 3 && codes[2] == CLI_ARGS_BAD, "flag twice");
        char *argv11[] = {"t", "--set", "a", "-sb", "--set=c", NULL};
        CHECK(run_args(5, argv11, codes, vals, 16) == 3 && codes[2] == 3 && !strcmp(vals[2], "c"),
              "a repeatable option");
    }
    GROUP("option parser", before);
}

static void test_quote(void)
{
    long before = srl_test_failures;
    char q[CLI_QUOTE_LEN];
    CHECK(strcmp(cli_quote(q, sizeof q, "abc", 3, 40), "'abc'") == 0, "short: %s", q);
    CHECK(strcmp(cli_quote(q, sizeof q, "a\tb\x1b", 4, 40), "'a\\x09b\\x1b'") == 0,
          "control: %s", q);
    /* C1 controls, reordering and invisible characters, bytes that are not UTF-8: escapes;
     * other UTF-8 text stays */
    CHECK(strcmp(cli_quote(q, sizeof q, "\xc2\x9b" "2J\xe2\x80\xae" "ab\xef\xbb\xbf\xff\xc3\xa9", 15,
                           40),
                 "'\\u{009b}2J\\u{202e}ab\\u{feff}\\xff\xc3\xa9'") == 0,
          "unicode: %s", q);
    CHECK(strcmp(cli_quote(q, sizeof q, "\xe2\x80", 2, 40), "'\\xe2\\x80'") == 0, "cut: %s", q);
    /* a long text of escapes: cut on an escape's boundary, the total length said */
    char ctl[300];
    memset(ctl, 0x1b, sizeof ctl);
    cli_quote(q, sizeof q, ctl, sizeof ctl, 200);
    const char *cut = strstr(q, "...' (300 characters)");
    bool whole = cut && q[0] == '\'' && (size_t)(cut - q - 1) % 4 == 0;
    for (const char *e = q + 1; whole && e < cut; e += 4)
        whole = !strncmp(e, "\\x1b", 4);
    CHECK(strlen(q) < sizeof q && whole, "long escapes: %s", q);
    char *tb = NULL;
    size_t tl = 0;
    FILE *tf = open_memstream(&tb, &tl);
    cli_fputs_text(tf, "x\x1b[2J\ry\n\xc2\x9b");
    fclose(tf);
    CHECK(!strcmp(tb, "x\\x1b[2J\\x0dy\\x0a\\u{009b}"), "cli_fputs_text: %s", tb);
    free(tb);
    char big[100];
    memset(big, 'z', sizeof big);
    cli_quote(q, sizeof q, big, sizeof big, 5);
    CHECK(strcmp(q, "'zzzzz...' (100 characters)") == 0, "long: %s", q);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    char *argv[] = {"round", "--batch", "-f", "p=8,emax=127", "it's", "a b", ""};
    cli_fprint_command(fp, 7, argv);
    fclose(fp);
    CHECK(strcmp(buf, "srlab round --batch -f p=8,emax=127 'it'\\''s' 'a b' ''") == 0,
          "command: %s", buf);
    free(buf);
    /* a control character: $'...' and one line; a formula after a comma: the quotes reopen */
    fp = open_memstream(&buf, &len);
    char *argv2[] = {"x\ny\x1b", "a,=b", "a,-1", "0.1,-0.2", "it's\t"};
    cli_fprint_command(fp, 5, argv2);
    fclose(fp);
    CHECK(strcmp(buf, "srlab $'x\\x0ay\\x1b' 'a,''=b' 'a,''-1' '0.1,''-0.2' $'it\\'s\\x09'") == 0,
          "command: %s", buf);
    free(buf);
    GROUP("quoting of user text and command lines", before);
}

/* Checked writes (issue 28, item 3): a stream keeps the errno of its first failed write, and an
 * output that cannot be written reports it (exit 3) and commits nothing. /dev/full fails every
 * write with ENOSPC. */
static void test_checked_writes(void)
{
    long before = srl_test_failures;
    int fd = open("/dev/full", O_WRONLY);
    if (fd < 0) {
        printf("SKIP checked writes: no /dev/full\n");
        return;
    }
    cli_stream k;
    FILE *fp = cli_stream_open(&k, fd, "w");
    CHECK(fp != NULL, "cli_stream_open");
    if (!fp)
        return;
    fputs("some text", fp);
    errno = ENOENT; /* what a later call would leave: it must not be what is reported */
    CHECK(cli_stream_finish(fp, &k) == ENOSPC, "the first error is kept: %s", strerror(k.err));
    fputs("more", fp);
    CHECK(cli_stream_finish(fp, &k) == ENOSPC, "the error stays: %s", strerror(k.err));
    CHECK(fclose(fp) != 0, "fclose of a failed stream fails");
    cli_out o;
    CHECK(cli_out_open(&o, "t", "-o", "/dev/full") == 0, "/dev/full is an output (a device)");
    fputs("text\n", o.fp);
    CHECK(cli_out_commit(&o) == CLI_EXIT_SYSTEM, "a device that cannot take it: exit 3");
    CHECK(cli_out_is_stdout("-") && cli_out_is_stdout("/dev/stdout") && cli_out_is_stdout(NULL) &&
          !cli_out_is_stdout("./-") && !cli_out_is_stdout("/dev/stderr"), "standard output's names");
    GROUP("checked writes and standard output's names", before);
}

int main(void)
{
    test_checked_writes();
    test_csv();
    test_formatting();
    test_parsers();
    test_args();
    test_quote();
    mpfr_free_cache();
    TEST_END();
}
