/* tests/fuzz/fuzz_plot.c: srlab plot against hostile command lines and data
 * (src/cli/cmd_plot.c, src/cli/figure.c, src/cli/gnuplot.c; docs/security.md).
 *
 * The input: a byte that picks the figure (one of the scripts in plots/), then lines (at most 6)
 * each of which is an argument -- "i=NAME" the --in file's name (one path component of at most
 * NAME_MAX bytes, which the harness can create; the data are written there), "o=PATH" the -o
 * figure, "d=NAME" a folder made before the run (so that -o can go into a folder named "|cmd"),
 * anything else a --set value (debug=NAME: NAME is an output of the input's too) -- then a NUL
 * byte, then the bytes of the CSV. Two modes:
 *
 *   default  PATH is emptied at start, so gnuplot is never found: the command stops at its last
 *            check, and no fuzzed text can reach gnuplot or a shell. Every command line must end
 *            in a usage error (2) or a system error (3: gnuplot cannot be started), never in 0.
 *   gnuplot  (SRL_FUZZ_GNUPLOT=1; tests/fuzz/run.sh plotgp) a real gnuplot runs. HOME is an
 *            empty folder of the target's, TMPDIR the run's folder. After every input: the
 *            status is 0 (a figure, which must start as a PNG does) or 2 (refused) -- a 3 is a
 *            finding too: srlab says so when gnuplot wrote a file it did not ask for; HOME is
 *            still empty; TMPDIR holds the entries it held before (gnuplot's private folder is
 *            gone); and the output folder holds only what the input named (the data, the
 *            figure, the folders; -o stays in it: a path with ".." or from "/" is no -o).
 *            Anything else -- a file created by a command gnuplot ran, or
 *            opened for writing under a name srlab did not choose -- aborts: a finding. */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "cli/cli.h"

#include "fuzz_util.h"

static int with_gnuplot;
static char home[512];

/* The names in dir, sorted and joined by '/', into a malloc'd string ("" when it is empty). */
static char *names(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        abort();
    char *list[512];
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && n < 512)
            list[n++] = strdup(de->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++) /* insertion sort: few names */
        for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
            char *t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
        }
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(list[i]) + 1;
    char *s = calloc(1, len);
    if (!s)
        abort();
    for (size_t i = 0; i < n; i++) {
        strcat(s, list[i]);
        strcat(s, "/");
        free(list[i]);
    }
    return s;
}

/* Remove everything in the folder dir (the output folder, before each input). */
static void empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        abort();
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            empty(path);
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *mode = getenv("SRL_FUZZ_GNUPLOT");
    with_gnuplot = mode && !strcmp(mode, "1");
    if (!with_gnuplot && setenv("PATH", "/nonexistent/srlab-fuzz-no-gnuplot", 1) != 0)
        abort();
    int rc = fuzz_initialize(argc, argv);
    if (with_gnuplot) {
        const char *base = getenv("TMPDIR");
        snprintf(home, sizeof home, "%s/srlab-fuzz-home-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(home) || setenv("HOME", home, 1) != 0)
            abort();
    }
    return rc;
}

/* Is `name` (a name in the output folder) one the input named: its data, its figure or a folder
 * (with what was drawn inside it)? */
static bool named(const char *name, const char *in, const char *out, char *const *dirs, size_t nd)
{
    const size_t n = strlen(name);
    if (!strcmp(name, in) || !strcmp(name, out))
        return true;
    for (size_t i = 0; i < nd; i++)
        if (!strcmp(name, dirs[i])) { /* empty, or holding the figure */
            char *inside = names(name), want[512];
            snprintf(want, sizeof want, "%s/", !strncmp(out, name, n) && out[n] == '/' ? out + n + 1 : "");
            const bool ok = !*inside || !strcmp(inside, want);
            free(inside);
            return ok;
        }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const figures[10] = {"loss_vs_step", "lr_sweep", "stall", "sum_error",
                                            "gpt_curves", "gpt_lr", "gpt_replicas", "heat",
                                            "srrn", "mx_gemm"};
    if (size < 1)
        return 0;
    const uint8_t *sets, *csv;
    size_t slen, clen;
    fuzz_split(data + 1, size - 1, 0, &sets, &slen, &csv, &clen);
    const char *dir = fuzz_tmpdir();
    empty(dir); /* in both modes: a folder an earlier input made (d=NAME) is no --in file */
    char *text = fuzz_cstr(sets, slen), *args[6 * 2 + 8], *dirs[6];
    const char *in = "in.csv", *out = "fig.png", *debug = "";
    size_t nd = 0;
    int argc = 0;
    args[argc++] = "plot";
    args[argc++] = (char *)figures[data[0] % (with_gnuplot ? 10 : 7)];
    for (char *s = text, *nl; s && argc < 6 * 2 + 2; s = nl ? nl + 1 : NULL) {
        if ((nl = strchr(s, '\n')))
            *nl = 0;
        if (!*s && !nl)
            break;
        if (!strncmp(s, "i=", 2) && s[2] && !strchr(s + 2, '/') && strcmp(s + 2, ".") &&
            strcmp(s + 2, "..") && strlen(s + 2) <= NAME_MAX) /* a name the harness can create */
            in = s + 2;
        else if (!strncmp(s, "o=", 2) && s[2] != '/' && !strstr(s + 2, "..")) /* stays here */
            out = s + 2;
        else if (!strncmp(s, "d=", 2) && s[2] && !strchr(s + 2, '/') && nd < 6 &&
                 mkdir(s + 2, 0700) == 0)
            dirs[nd++] = s + 2;
        else {
            if (!strncmp(s, "debug=", 6) && !strchr(s + 6, '/'))
                debug = s + 6; /* an output the input names too */
            args[argc++] = "--set";
            args[argc++] = s;
        }
    }
    fuzz_file(in, csv, clen);
    args[argc++] = "--in";
    args[argc++] = (char *)in;
    args[argc++] = "-o";
    args[argc++] = (char *)out;
    args[argc] = NULL;
    const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *tmp_before = with_gnuplot ? names(tmpdir) : NULL;
    const int rc = cmd_plot(argc, args);
    if (!with_gnuplot) {
        if (rc != CLI_EXIT_USAGE && rc != CLI_EXIT_SYSTEM)
            abort(); /* without gnuplot no command line can succeed */
        free(text);
        return 0;
    }
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_USAGE)
        abort(); /* 3: gnuplot wrote a file srlab did not name (or worse) */
    if (rc == CLI_EXIT_OK && strcmp(out, "-")) { /* a figure: a PNG where -o said */
        FILE *f = fopen(out, "rb");
        unsigned char sig[8] = {0};
        if (!f || fread(sig, 1, 8, f) != 8 || memcmp(sig, "\x89PNG\r\n\x1a\n", 8))
            abort();
        fclose(f);
    }
    char *tmp_after = names(tmpdir), *home_after = names(home);
    if (strcmp(tmp_before, tmp_after) || *home_after)
        abort(); /* a file outside the output folder */
    DIR *d = opendir(".");
    if (!d)
        abort();
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            !named(de->d_name, in, out, dirs, nd) && strcmp(de->d_name, debug))
            abort(); /* a file in the output folder that the input did not name */
    closedir(d);
    free(tmp_before), free(tmp_after), free(home_after);
    free(text);
    return 0;
}
