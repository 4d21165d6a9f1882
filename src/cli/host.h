/* src/cli/host.h: what the srlab command needs of the machine it runs on (src/cli/host.c).
 *
 *   data directories  where plots/NAME.gp, experiments/NAME.ini and theory/TNN-slug.md are:
 *                     $SRLAB_PLOTS, $SRLAB_EXPERIMENTS and $SRLAB_THEORY when set, else the
 *                     source tree this srlab was built
 *                     from when it is there, else the installed data directory (meson's
 *                     datadir/srlab/...; SRL_*_INSTALL_DIR in src/cli/meson.build);
 *   files             a file in a folder, read whole or its first bytes; whether it is there;
 *                     the names in a folder with a suffix; programs on PATH; the clock;
 *   child programs    started with fork and exec from an argument vector (no shell), waited
 *                     for, their status as a shell reports it.
 * Nothing here prints: the commands turn failures into their messages. */
#ifndef SRL_CLI_HOST_H
#define SRL_CLI_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- data directories ---- */

const char *cli_host_plots_dir(void);       /* srlab plot's scripts, plots/NAME.gp */
const char *cli_host_experiments_dir(void); /* srlab reproduce's specs, experiments/NAME.ini */
const char *cli_host_theory_dir(void);      /* the statements srlab theory and check cite */
/* Where a spec named by its name is looked for, in order: $SRLAB_EXPERIMENTS alone when set,
 * else the source tree's experiments folder (when it is there) and the installed one. Returns
 * how many of dirs are filled (1 or 2). */
size_t cli_host_experiments_dirs(const char *dirs[2]);
/* The spec NAME (or NAME.ini) in those folders: its path, malloc'd, the first found; or NULL,
 * with the folders looked in ("A and B") in looked (len bytes) when it is not NULL. */
char *cli_host_find_spec(const char *name, char *looked, size_t len);

/* ---- files ---- */

/* The one way srlab reads a file (every input: specs, shards, plot inputs, batch files, runs
 * files): the whole of path, NUL-terminated, malloc'd in *data, its length in *len. Only a
 * regular file is read (a device, FIFO, socket or directory is refused without reading it, and a
 * FIFO without waiting for a writer), and at most CLI_READ_MAX bytes (256 MiB: srlab's inputs are
 * text tables and specs; a bigger file is refused, not truncated). A UTF-8 byte-order mark at its
 * start is dropped (it is no part of the text). Every input is text: a NUL byte anywhere is
 * refused (CLI_READ_ENUL; the message names its line), since every reader after this one would
 * take it for the end of the text and silently drop the rest of the line or file. The file is
 * noted as an input (cli_input_note in cli.h), so no output replaces it. Returns 0, or an errno
 * value or one of CLI_READ_E* below: say it with cli_read_strerror. Every output srlab writes fits
 * (src/cli/rows.h, "bounded outputs"; asserted at compile time in src/cli/runcmd.h), so srlab can
 * always read back what it wrote: a sweep's journal, a shard for merge, rows for plot. */
#define CLI_READ_MAX ((size_t)256 << 20)
enum {
    CLI_READ_ESPECIAL = -2001, /* not a regular file */
    CLI_READ_ETOOBIG = -2002,  /* more than CLI_READ_MAX bytes */
    CLI_READ_ENUL = -2003      /* a NUL byte (cli_read_file only) */
};
int cli_read_file(const char *path, char **data, size_t *len);
/* The same without the NUL check, for the files srlab reads that are not text a person wrote:
 * a sweep's journal, whose reader (srl_sweep_journal_read) checks every record's length and
 * checksum, so that a record a crash left full of NUL bytes is dropped as damage and rerun; and
 * what gnuplot writes in its folder (cli_host_read: the drawing, its messages). */
int cli_read_bytes(const char *path, char **data, size_t *len);
/* Why cli_read_file failed, as the end of a message ("cannot read X: ..."); for CLI_READ_ENUL,
 * the line and byte of the last NUL refused (one static buffer: the command reads one file at a
 * time). */
const char *cli_read_strerror(int e);

/* Is path an existing folder (following links)? */
bool cli_host_is_dir(const char *path);
/* "dir/name", malloc'd; NULL when out of memory. */
char *cli_host_path(const char *dir, const char *name);
/* Is dir/name accessible in `mode` (access(2): F_OK, R_OK, ...)? */
bool cli_host_access(const char *dir, const char *name, int mode);
/* The whole file dir/name, NUL-terminated, malloc'd (its length in *len when len is not NULL),
 * or NULL when it cannot be read; NUL bytes and all (cli_read_bytes: a PNG holds them). */
char *cli_host_read(const char *dir, const char *name, size_t *len);
/* The first `max` bytes of dir/name (fewer when it is shorter), NUL-terminated, malloc'd, or
 * NULL. */
char *cli_host_read_head(const char *dir, const char *name, size_t max);
/* The names of the regular files NAME`suffix` in dir that do not start with '.', without the
 * suffix, sorted (strcmp); *names is malloc'd, each name too (cli_host_names_free).
 * Returns 0, or an errno value (the folder cannot be read, ENOMEM). */
int cli_host_list(const char *dir, const char *suffix, char ***names, size_t *count);
void cli_host_names_free(char **names, size_t count);
/* Is there an executable `name` in a folder of $PATH (/usr/bin:/bin when unset)? */
bool cli_host_has_program(const char *name);

/* Seconds on a monotonic clock (for wall times: differences only). */
double cli_host_now(void);

/* path without its leading "./" (and the slashes after it): "./k.ini" and ".//k.ini" are "k.ini",
 * so the spelling of a relative path does not change what srlab writes about it (a sweep's
 * "# spec:" line). A pointer into path; "." when nothing is left. */
const char *cli_host_plain_path(const char *path);

/* ---- where a spec's output goes ----
 * A spec file's `output = VALUE` is a path from the spec file's folder (spec: its path as given;
 * NULL for a spec found by its name, whose outputs go to the current folder), so a sweep writes
 * the same file from any folder. An absolute VALUE, or one whose ".." components climb out of
 * that folder (decided on the text: "a/../../x" climbs, "a/../x" does not), is refused unless
 * allow_outside (srlab sweep --allow-outside). Returns 0 with the path malloc'd in *path; EPERM or
 * EINVAL with the reason in *why; ENOMEM. */
int cli_host_spec_output(const char *spec, const char *value, bool allow_outside, char **path,
                         const char **why);

/* ---- child programs ---- */

typedef struct cli_host_child {
    const char *program;   /* a path; or, with search, a name looked up in $PATH */
    bool search;
    char *const *argv;     /* NULL-terminated; argv[0] the name the child sees */
    const char *dir;       /* the child's working directory, or NULL for this one */
    int out_fd;            /* the child's standard output and error, or -1 for these */
    bool null_stdin;       /* the child's standard input from /dev/null */
    const char *dir_error;  /* written on the child's standard error when it cannot enter dir */
    const char *exec_error; /* ... when the program cannot start (NULL: nothing is written) */
    char *const *env;       /* the child's environment ("NAME=VALUE", NULL-terminated), or NULL
                             * for this process's */
} cli_host_child;

/* Start the child (standard output and error flushed first). Returns 0 with its id in *pid,
 * or an errno value (fork failed). A child that cannot enter dir or start the program exits
 * with status 127. */
int cli_host_spawn(const cli_host_child *c, pid_t *pid);

/* How a child ended. */
typedef struct cli_host_exit {
    int status; /* as a shell reports it: the exit status, 128 + N when killed by signal N */
    int signal; /* the signal that killed it, or 0 */
} cli_host_exit;

/* Wait for the child pid to end (retrying after EINTR). Returns 0, or an errno value. */
int cli_host_wait(pid_t pid, cli_host_exit *e);

#endif
