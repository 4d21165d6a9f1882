/* src/cli/host.c: data directories, files and child programs for the srlab command
 * (src/cli/host.h). */
#include "cli/host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "srl_experiments_paths.h"
#include "srl_plots_paths.h"
#include "srl_theory_paths.h"

/* ---- data directories ---- */

/* $env when set, else the source tree's folder when it is there, else the installed one. */
static const char *data_dir(const char *env, const char *source, const char *installed)
{
    const char *v = getenv(env);
    if (v && *v)
        return v;
    if (cli_host_is_dir(source))
        return source;
    return installed;
}

const char *cli_host_theory_dir(void)
{
    return data_dir("SRLAB_THEORY", SRL_THEORY_SOURCE_DIR, SRL_THEORY_INSTALL_DIR);
}

const char *cli_host_plots_dir(void)
{
    return data_dir("SRLAB_PLOTS", SRL_PLOTS_SOURCE_DIR, SRL_PLOTS_INSTALL_DIR);
}

const char *cli_host_experiments_dir(void)
{
    return data_dir("SRLAB_EXPERIMENTS", SRL_EXPERIMENTS_SOURCE_DIR, SRL_EXPERIMENTS_INSTALL_DIR);
}

size_t cli_host_experiments_dirs(const char *dirs[2])
{
    const char *v = getenv("SRLAB_EXPERIMENTS");
    if (v && *v) {
        dirs[0] = v;
        return 1;
    }
    size_t n = 0;
    if (cli_host_is_dir(SRL_EXPERIMENTS_SOURCE_DIR))
        dirs[n++] = SRL_EXPERIMENTS_SOURCE_DIR;
    dirs[n++] = SRL_EXPERIMENTS_INSTALL_DIR;
    return n;
}

char *cli_host_find_spec(const char *name, char *looked, size_t len)
{
    const char *dirs[2];
    size_t nd = cli_host_experiments_dirs(dirs);
    size_t nl = strlen(name);
    bool ini = nl > 4 && !strcmp(name + nl - 4, ".ini");
    if (looked && len)
        looked[0] = 0;
    for (size_t i = 0; i < nd; i++) {
        char *p = cli_alloc_printf("%s/%.*s.ini", dirs[i], (int)(ini ? nl - 4 : nl), name);
        struct stat sb;
        if (p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            return p;
        if (looked && len) {
            size_t k = strlen(looked);
            snprintf(looked + k, len - k, "%s%s", k ? " and " : "", dirs[i]);
        }
        free(p);
    }
    return NULL;
}

/* ---- files ---- */

bool cli_host_is_dir(const char *path)
{
    struct stat sb;
    return path && *path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

char *cli_host_path(const char *dir, const char *name)
{
    return cli_alloc_printf("%s/%s", dir, name);
}

bool cli_host_access(const char *dir, const char *name, int mode)
{
    char *p = cli_host_path(dir, name);
    bool ok = p && access(p, mode) == 0;
    free(p);
    return ok;
}

/* What cli_read_strerror says of the last NUL refused. */
static char nul_why[160];

static int read_file(const char *path, char **data, size_t *len, bool text)
{
    *data = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno ? errno : EIO;
    struct stat sb;
    int e = 0;
    if (fstat(fd, &sb) != 0)
        e = errno ? errno : EIO;
    else if (S_ISDIR(sb.st_mode))
        e = EISDIR;
    else if (!S_ISREG(sb.st_mode))
        e = CLI_READ_ESPECIAL;
    else if (sb.st_size > 0 && (uintmax_t)sb.st_size > CLI_READ_MAX)
        e = CLI_READ_ETOOBIG;
    if (e) {
        close(fd);
        return e;
    }
    /* st_size is a hint only (files in /proc say 0; a file may grow while read) */
    size_t cap = sb.st_size > 0 ? (size_t)sb.st_size + 1 : (size_t)1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return ENOMEM;
    }
    for (;;) {
        if (n == cap) {
            if (cap > CLI_READ_MAX) {
                e = CLI_READ_ETOOBIG;
                break;
            }
            cap = cap > CLI_READ_MAX / 2 ? CLI_READ_MAX + 1 : 2 * cap;
            char *b2 = realloc(buf, cap + 1);
            if (!b2) {
                e = ENOMEM;
                break;
            }
            buf = b2;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            e = errno ? errno : EIO;
            break;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (!e && n > CLI_READ_MAX)
        e = CLI_READ_ETOOBIG;
    if (e) {
        free(buf);
        return e;
    }
    if (n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) { /* a UTF-8 byte-order mark: no text */
        memmove(buf, buf + 3, n - 3);
        n -= 3;
    }
    const char *nul = text ? memchr(buf, 0, n) : NULL;
    if (nul) {
        size_t line = 1, at = (size_t)(nul - buf);
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(nul - p))); p++)
            line++;
        snprintf(nul_why, sizeof nul_why, "line %zu holds a NUL byte (byte %zu of the file): "
                 "srlab reads text, and a NUL would end the text there", line, at + 1);
        free(buf);
        return CLI_READ_ENUL;
    }
    buf[n] = 0;
    cli_input_note(path, &sb);
    *data = buf;
    *len = n;
    return 0;
}

int cli_read_file(const char *path, char **data, size_t *len)
{
    return read_file(path, data, len, true);
}

int cli_read_bytes(const char *path, char **data, size_t *len)
{
    return read_file(path, data, len, false);
}

const char *cli_read_strerror(int e)
{
    switch (e) {
    case CLI_READ_ENUL:
        return nul_why[0] ? nul_why : "a NUL byte: srlab reads text";
    case CLI_READ_ESPECIAL:
        return "not a regular file (a device, FIFO or socket): srlab reads only regular files";
    case CLI_READ_ETOOBIG:
        return "larger than 256 MiB, the most srlab reads from one file";
    case EISDIR:
        return "it is a directory, not a file";
    default:
        return strerror(e);
    }
}

char *cli_host_read(const char *dir, const char *name, size_t *len)
{
    char *p = cli_host_path(dir, name), *data = NULL;
    size_t n = 0;
    if (p && cli_read_bytes(p, &data, &n) != 0)
        data = NULL;
    free(p);
    if (len)
        *len = data ? n : 0;
    return data;
}

char *cli_host_read_head(const char *dir, const char *name, size_t max)
{
    char *p = cli_host_path(dir, name);
    int fd = p ? open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) : -1;
    free(p);
    struct stat sb;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) { /* a regular file only, as cli_read_file */
        close(fd);
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = 0;
    while (buf && n < max) {
        ssize_t k = read(fd, buf + n, max - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (buf)
        buf[n] = 0;
    return buf;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is dir/name a regular file? */
static bool regular_file(const char *dir, const char *name)
{
    char *p = cli_host_path(dir, name);
    struct stat sb;
    bool file = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
    free(p);
    return file;
}

int cli_host_list(const char *dir, const char *suffix, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno ? errno : EIO;
    const size_t sl = strlen(suffix);
    char **v = NULL;
    size_t n = 0;
    int err = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        const size_t l = strlen(de->d_name);
        if (l <= sl || strcmp(de->d_name + l - sl, suffix) || de->d_name[0] == '.' ||
            !regular_file(dir, de->d_name))
            continue;
        char **v2 = realloc(v, (n + 1) * sizeof *v);
        if (!v2 || !(v2[n] = strndup(de->d_name, l - sl))) {
            v = v2 ? v2 : v;
            err = ENOMEM;
            break;
        }
        v = v2;
        n++;
    }
    closedir(d);
    if (err) {
        cli_host_names_free(v, n);
        return err;
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_names);
    *names = v;
    *count = n;
    return 0;
}

void cli_host_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

bool cli_host_has_program(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        const size_t n = strcspn(path, ":");
        char *p = n ? cli_alloc_printf("%.*s/%s", (int)n, path, name) : NULL;
        const bool ok = p && access(p, X_OK) == 0;
        free(p);
        if (ok)
            return true;
        path += n + (path[n] == ':');
    }
    return false;
}

double cli_host_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- child programs ---- */

extern char **environ; /* POSIX: the application declares it */

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* In the child, after fork: only async-signal-safe calls until exec. */
static void become_child(const cli_host_child *c)
{
    if (c->null_stdin) {
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
    }
    if (c->out_fd >= 0) {
        dup2(c->out_fd, 1);
        dup2(c->out_fd, 2);
    }
    if (c->dir && chdir(c->dir) != 0) {
        if (c->dir_error)
            write_all(2, c->dir_error, strlen(c->dir_error));
        _exit(127);
    }
    if (c->env)
        environ = (char **)c->env; /* what execvp and execv pass on */
    if (c->search)
        execvp(c->program, c->argv);
    else
        execv(c->program, c->argv);
    if (c->exec_error)
        write_all(2, c->exec_error, strlen(c->exec_error));
    _exit(127);
}

int cli_host_spawn(const cli_host_child *c, pid_t *pid)
{
    fflush(NULL);
    *pid = fork();
    if (*pid < 0)
        return errno ? errno : EAGAIN;
    if (*pid == 0)
        become_child(c);
    return 0;
}

int cli_host_wait(pid_t pid, cli_host_exit *e)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return errno;
    e->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    e->status = WIFEXITED(status) ? WEXITSTATUS(status) : e->signal ? 128 + e->signal : 127;
    return 0;
}

const char *cli_host_plain_path(const char *path)
{
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    return *path ? path : ".";
}

/* ---- where a spec's output goes ---- */

int cli_host_spec_output(const char *spec, const char *value, bool allow_outside, char **path,
                         const char **why)
{
    *path = NULL;
    *why = NULL;
    if (!*value) {
        *why = "an empty file name";
        return EINVAL;
    }
    if (value[0] == '/' && !allow_outside) {
        *why = "an absolute path, outside the spec file's folder";
        return EPERM;
    }
    /* climbs out of the folder: more ".." than names before them, component by component */
    long depth = 0;
    for (const char *c = value; *c && !allow_outside;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && !strncmp(c, "..", 2))
            depth--;
        else if (n && !(n == 1 && *c == '.'))
            depth++;
        if (depth < 0) {
            *why = "its .. leaves the spec file's folder";
            return EPERM;
        }
        c += n;
        c += *c == '/';
    }
    if (spec)
        spec = cli_host_plain_path(spec); /* "./k.ini" and "k.ini" give the same name */
    const char *slash = spec ? strrchr(spec, '/') : NULL;
    if (value[0] == '/' || !slash) /* absolute, or the spec is in the current folder */
        *path = strdup(value);
    else if (slash == spec)
        *path = cli_alloc_printf("/%s", value);
    else
        *path = cli_alloc_printf("%.*s/%s", (int)(slash - spec), spec, value);
    return *path ? 0 : ENOMEM;
}
