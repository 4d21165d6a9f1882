/* tests/cli/test_cli_host.c: what the srlab command needs of the machine (src/cli/host.c)
 * against its contract in src/cli/host.h: the data directories' lookup order, files in a folder
 * (read whole and in part, access, the sorted list of names with a suffix), programs on PATH,
 * and child programs (exit status, death by a signal, a program or folder that is not there,
 * the working directory, standard input from /dev/null, output into a file); the bounded reader
 * (special files, the size cap, a byte-order mark, inputs noted), team sizes, spec outputs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/host.h"
#include "srlab/run.h"
#include "srl_experiments_paths.h"
#include "srl_plots_paths.h"
#include "testutil.h"

static char dir[] = "/tmp/srlab-test-host.XXXXXX";

static void write_file(const char *name, const char *text)
{
    char *p = cli_host_path(dir, name);
    FILE *fp = p ? fopen(p, "w") : NULL;
    CHECK(fp != NULL, "cannot create %s", name);
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
    free(p);
}

static void test_data_dirs(void)
{
    long before = srl_test_failures;
    setenv("SRLAB_PLOTS", "/some/plots", 1);
    setenv("SRLAB_EXPERIMENTS", "/some/specs", 1);
    CHECK(!strcmp(cli_host_plots_dir(), "/some/plots"), "SRLAB_PLOTS: %s", cli_host_plots_dir());
    CHECK(!strcmp(cli_host_experiments_dir(), "/some/specs"), "SRLAB_EXPERIMENTS: %s",
          cli_host_experiments_dir());
    setenv("SRLAB_PLOTS", "", 1); /* empty: as if unset */
    unsetenv("SRLAB_EXPERIMENTS");
    /* the tests run in the source tree this was built from: its folders come next */
    CHECK(!strcmp(cli_host_plots_dir(), SRL_PLOTS_SOURCE_DIR), "plots: %s", cli_host_plots_dir());
    CHECK(!strcmp(cli_host_experiments_dir(), SRL_EXPERIMENTS_SOURCE_DIR), "experiments: %s",
          cli_host_experiments_dir());
    unsetenv("SRLAB_PLOTS");
    GROUP("data directories: $SRLAB_*, then the source tree", before);
}

static void test_files(void)
{
    long before = srl_test_failures;
    write_file("b.gp", "# b\n");
    write_file("a.gp", "first line\nsecond line\n");
    write_file(".hidden.gp", "");
    write_file("c.txt", "");
    write_file("x.gpx", "");
    char *sub = cli_host_path(dir, "folder.gp");
    CHECK(sub && mkdir(sub, 0700) == 0, "mkdir folder.gp");
    char *file = cli_host_path(dir, "c.txt");
    CHECK(cli_host_is_dir(sub) && !cli_host_is_dir(file) && !cli_host_is_dir("") &&
              !cli_host_is_dir(NULL),
          "cli_host_is_dir");
    free(file);
    free(sub);

    char **names;
    size_t n;
    CHECK(cli_host_list(dir, ".gp", &names, &n) == 0, "cli_host_list");
    CHECK(n == 2 && !strcmp(names[0], "a") && !strcmp(names[1], "b"),
          "only the regular, visible NAME.gp files, sorted: %zu names, first %s", n,
          n ? names[0] : "-");
    cli_host_names_free(names, n);
    CHECK(cli_host_list("/nonexistent-srlab-folder", ".gp", &names, &n) != 0 && n == 0 && !names,
          "a missing folder is an errno value");

    size_t len = 99;
    char *text = cli_host_read(dir, "a.gp", &len);
    CHECK(text && len == 23 && !strcmp(text, "first line\nsecond line\n"), "read whole: %zu",
          len);
    free(text);
    CHECK(!cli_host_read(dir, "none.gp", &len) && len == 0, "read a missing file: NULL, len 0");
    text = cli_host_read_head(dir, "a.gp", 5);
    CHECK(text && !strcmp(text, "first"), "the first 5 bytes: [%s]", text ? text : "NULL");
    free(text);
    text = cli_host_read_head(dir, "b.gp", 100);
    CHECK(text && !strcmp(text, "# b\n"), "a head longer than the file: [%s]", text ? text : "");
    free(text);
    CHECK(cli_host_access(dir, "a.gp", R_OK) && !cli_host_access(dir, "none.gp", F_OK),
          "cli_host_access");

    CHECK(cli_host_has_program("sh"), "sh is on PATH");
    CHECK(!cli_host_has_program("no-such-program-srlab"), "a program that is nowhere");
    GROUP("files: read, head, access, list; programs on PATH", before);
}

/* Run sh -c SCRIPT (in folder `in`, output into the file out.txt of dir) and wait. */
static cli_host_exit run_sh(const char *script, const char *in, char **out)
{
    char *log = cli_host_path(dir, "out.txt");
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    CHECK(fd >= 0, "cannot open %s", log);
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    const cli_host_child c = {"sh", true, argv, in, fd, true, "no folder\n", "no program\n",
                              NULL};
    cli_host_exit e = {-1, -1};
    pid_t pid;
    CHECK(cli_host_spawn(&c, &pid) == 0, "spawn %s", script);
    close(fd);
    CHECK(cli_host_wait(pid, &e) == 0, "wait %s", script);
    *out = cli_host_read(dir, "out.txt", NULL);
    free(log);
    return e;
}

static void test_children(void)
{
    long before = srl_test_failures;
    char *out;
    cli_host_exit e = run_sh("echo hello; exit 3", NULL, &out);
    CHECK(e.status == 3 && e.signal == 0 && out && !strcmp(out, "hello\n"),
          "exit 3: status %d signal %d output [%s]", e.status, e.signal, out ? out : "");
    free(out);
    e = run_sh("echo to-stderr >&2; kill -TERM $$", NULL, &out);
    CHECK(e.status == 128 + SIGTERM && e.signal == SIGTERM && out && !strcmp(out, "to-stderr\n"),
          "killed: status %d signal %d output [%s]", e.status, e.signal, out ? out : "");
    free(out);
    e = run_sh("pwd; cat", dir, &out); /* cat: standard input is /dev/null, so it ends at once */
    char want[sizeof dir + 2];
    snprintf(want, sizeof want, "%s\n", dir);
    CHECK(e.status == 0 && out && !strcmp(out, want), "working folder: status %d output [%s]",
          e.status, out ? out : "");
    free(out);
    e = run_sh("exit 0", "/nonexistent-srlab-folder", &out);
    CHECK(e.status == 127 && out && !strcmp(out, "no folder\n"),
          "a missing folder: status %d output [%s]", e.status, out ? out : "");
    free(out);

    /* an environment of its own: exactly the strings given, looked up on the parent's PATH */
    char *log = cli_host_path(dir, "out.txt");
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    char *sh_argv[] = {"sh", "-c", "echo \"$SRL_ONE|${HOME-unset}\"", NULL};
    char *env[] = {"SRL_ONE=1", NULL};
    const cli_host_child c = {"sh", true, sh_argv, NULL, fd, true, NULL, NULL, env};
    pid_t pid;
    CHECK(fd >= 0 && cli_host_spawn(&c, &pid) == 0 && cli_host_wait(pid, &e) == 0, "spawn env");
    close(fd);
    out = cli_host_read(dir, "out.txt", NULL);
    CHECK(e.status == 0 && out && !strcmp(out, "1|unset\n"), "env: status %d output [%s]",
          e.status, out ? out : "");
    free(out);
    free(log);

    char *argv[] = {"srlab-none", NULL};
    const cli_host_child none = {"/nonexistent-srlab-program", false, argv, NULL, -1, false,
                                 NULL, NULL, NULL};
    CHECK(cli_host_spawn(&none, &pid) == 0 && cli_host_wait(pid, &e) == 0 && e.status == 127 &&
              e.signal == 0,
          "a program that is not there: status %d", e.status);
    GROUP("child programs: status, signal, folder, stdin, output, environment, 127", before);
}

static void test_reader(void)
{
    long before = srl_test_failures;
    char *data = NULL, *p;
    size_t len = 99;
    /* a device, a FIFO (without waiting for a writer), a folder: refused, nothing read */
    CHECK(cli_read_file("/dev/zero", &data, &len) == CLI_READ_ESPECIAL && !data && len == 0,
          "/dev/zero is not a regular file");
    p = cli_host_path(dir, "fifo");
    CHECK(p && mkfifo(p, 0600) == 0, "mkfifo");
    CHECK(p && cli_read_file(p, &data, &len) == CLI_READ_ESPECIAL && !data, "a FIFO is refused");
    free(p);
    CHECK(cli_read_file(dir, &data, &len) == EISDIR && !data, "a folder is refused");
    CHECK(strstr(cli_read_strerror(CLI_READ_ESPECIAL), "not a regular file") &&
              strstr(cli_read_strerror(CLI_READ_ETOOBIG), "256 MiB"),
          "messages: %s / %s", cli_read_strerror(CLI_READ_ESPECIAL),
          cli_read_strerror(CLI_READ_ETOOBIG));
    /* one byte beyond the cap (a sparse file: nothing is written to disk) */
    p = cli_host_path(dir, "big");
    int fd = p ? open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;
    CHECK(fd >= 0 && ftruncate(fd, (off_t)CLI_READ_MAX + 1) == 0, "a sparse file");
    if (fd >= 0)
        close(fd);
    CHECK(p && cli_read_file(p, &data, &len) == CLI_READ_ETOOBIG && !data, "beyond the cap");
    CHECK(p && truncate(p, (off_t)CLI_READ_MAX) == 0, "at the cap");
    CHECK(p && cli_read_bytes(p, &data, &len) == 0 && data && len == CLI_READ_MAX && !data[len],
          "exactly the cap is read: %zu", len);
    free(data);
    data = NULL;
    /* ... and as text refused: a sparse file is all NUL bytes */
    CHECK(p && cli_read_file(p, &data, &len) == CLI_READ_ENUL && !data &&
              strstr(cli_read_strerror(CLI_READ_ENUL), "line 1 holds a NUL byte (byte 1 of "),
          "a NUL byte: %s", cli_read_strerror(CLI_READ_ENUL));
    free(data);
    data = NULL;
    free(p); /* kept (sparse): a file made after its removal could take its inode number */
    /* a byte-order mark is dropped; the file becomes an input, under any spelling */
    write_file("bom.ini", "\xEF\xBB\xBF" "a = 1\n");
    p = cli_host_path(dir, "bom.ini");
    CHECK(p && !cli_input_same(p), "not an input before it is read");
    CHECK(p && cli_read_file(p, &data, &len) == 0 && len == 6 && !strcmp(data, "a = 1\n"),
          "byte-order mark dropped: %zu [%s]", len, data ? data : "");
    free(data);
    char *alias = cli_host_path(dir, "./bom.ini"), *link = cli_host_path(dir, "link.ini");
    CHECK(link && symlink(p, link) == 0, "symlink");
    CHECK(p && cli_input_same(p) && alias && cli_input_same(alias) && cli_input_same(link),
          "an input under three spellings");
    free(alias);
    free(link);
    free(p);
    /* a NUL byte: refused by the text reader, naming its line; read by the bytes reader */
    p = cli_host_path(dir, "nul.ini");
    FILE *nf = p ? fopen(p, "wb") : NULL;
    CHECK(nf && fwrite("a = 1\nb = 2\0,3\n", 1, 15, nf) == 15 && fclose(nf) == 0, "nul.ini");
    CHECK(p && cli_read_file(p, &data, &len) == CLI_READ_ENUL && !data &&
              !strcmp(cli_read_strerror(CLI_READ_ENUL),
                      "line 2 holds a NUL byte (byte 12 of the file): srlab reads text, and a NUL "
                      "would end the text there"),
          "a NUL on line 2: %s", cli_read_strerror(CLI_READ_ENUL));
    CHECK(p && cli_read_bytes(p, &data, &len) == 0 && len == 15 && data && !data[11],
          "the bytes reader: %zu", len);
    free(data);
    data = NULL;
    free(p);
    GROUP("cli_read_file: special files, the cap, a BOM, a NUL, inputs noted", before);
}

static void test_teams(void)
{
    long before = srl_test_failures;
    int max = srl_run_max_threads();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(max >= 1 && max <= SRL_RUN_THREADS_MAX &&
              (max == SRL_RUN_THREADS_MAX || max == SRL_RUN_THREADS_PER_CPU * (cpus < 1 ? 1 : cpus)),
          "max threads %d with %ld processors", max, cpus);
    CHECK(srl_run_team(100000, 0) == max, "100000 asked: %d", srl_run_team(100000, 0));
    CHECK(srl_run_team(100000, 3) == (max < 3 ? max : 3), "3 work items");
    CHECK(srl_run_team(1, 1000) == 1 && srl_run_team(-5, 1) == 1, "at least 1, at most work");
    GROUP("team sizes: clamped to the machine and the work", before);
}

static void test_spec_output(void)
{
    long before = srl_test_failures;
    static const struct {
        const char *spec, *value, *path; /* path NULL: refused */
    } cases[] = {
        {"k.ini", "o.csv", "o.csv"},
        {"./k.ini", "o.csv", "o.csv"},
        {"sub/k.ini", "o.csv", "sub/o.csv"},
        {"./sub/k.ini", "out/o.csv", "sub/out/o.csv"},
        {"/abs/k.ini", "o.csv", "/abs/o.csv"},
        {NULL, "o.csv", "o.csv"},           /* a spec found by name: the current folder */
        {"sub/k.ini", "a/../o.csv", "sub/a/../o.csv"},
        {"sub/k.ini", "../o.csv", NULL},
        {"sub/k.ini", "a/../../o.csv", NULL},
        {"sub/k.ini", "/tmp/o.csv", NULL},
        {"sub/k.ini", "", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = NULL;
        const char *why = NULL;
        int e = cli_host_spec_output(cases[i].spec, cases[i].value, false, &path, &why);
        if (cases[i].path)
            CHECK(e == 0 && path && !strcmp(path, cases[i].path), "%s + %s: %s", cases[i].spec,
                  cases[i].value, path ? path : why);
        else
            CHECK(e != 0 && !path && why, "%s + %s is refused", cases[i].spec, cases[i].value);
        free(path);
    }
    char *path = NULL;
    const char *why = NULL;
    CHECK(cli_host_spec_output("sub/k.ini", "../o.csv", true, &path, &why) == 0 && path &&
              !strcmp(path, "sub/../o.csv"),
          "--allow-outside: %s", path ? path : why);
    free(path);
    CHECK(!strcmp(cli_host_plain_path("./k.ini"), "k.ini") &&
              !strcmp(cli_host_plain_path(".//./k.ini"), "k.ini") &&
              !strcmp(cli_host_plain_path("./"), ".") &&
              !strcmp(cli_host_plain_path("a/./b"), "a/./b"),
          "plain paths");
    GROUP("spec outputs: from the spec's folder, inside it; plain paths", before);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_data_dirs();
    test_files();
    test_children();
    test_reader();
    test_teams();
    test_spec_output();
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    TEST_END();
}
