/* src/cli/gnuplot.c: values srlab hands to gnuplot, and the private folder gnuplot runs in
 * (src/cli/gnuplot.h; the rule and its tests: docs/security.md). */
#include "cli/gnuplot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli/cli.h"

extern char **environ; /* POSIX: the application declares it */

/* ---- values ---- */

/* The length of the UTF-8 sequence at s (n bytes left) when it encodes a code point >= U+00A0
 * (no C1 control, no surrogate, no overlong form), else 0. */
static size_t utf8_letter(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!len || len > n || s[0] > 0xf4)
        return 0;
    uint32_t cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0xa0, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

const char *cli_gp_text_check(const char *s, size_t n, cli_gp_class c, char *why)
{
    static const char *const extra[] = {"_-+.", "_-+.,:=[]/", "_-+.,:=[]/ ()^{}*"};
    static const char *const what[] = {
        "a column name cannot have (letters, digits and _-+. only)",
        "a value in a filter cannot have (letters, digits and _-+.,:=[]/ only)",
        "a text cannot have (letters, digits, space and _-+.,:=[]/()^{}* only)"};
    if (n > CLI_GP_TEXT_MAX) {
        snprintf(why, CLI_GP_WHY_LEN, "is longer than %d bytes", CLI_GP_TEXT_MAX);
        return why;
    }
    for (size_t i = 0; i < n;) {
        const unsigned char u = (unsigned char)s[i];
        if ((u < 0x80 && ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                          (u >= '0' && u <= '9') || (u && strchr(extra[c], u))))) {
            i++;
            continue;
        }
        const size_t k = c == CLI_GP_TEXT ? utf8_letter((const unsigned char *)s + i, n - i) : 0;
        if (k) {
            i += k;
            continue;
        }
        if (u >= 0x21 && u < 0x7f)
            snprintf(why, CLI_GP_WHY_LEN, "holds '%c', which %s", u, what[c]);
        else
            snprintf(why, CLI_GP_WHY_LEN, "holds the byte 0x%02x, which %s", u, what[c]);
        return why;
    }
    return NULL;
}

bool cli_gp_literal(FILE *m, const char *s, size_t n, cli_gp_class c)
{
    char why[CLI_GP_WHY_LEN];
    if (cli_gp_text_check(s, n, c, why))
        return false;
    fputc('\'', m); /* inside single quotes gnuplot expands nothing (no backquote, no macro) */
    fwrite(s, 1, n, m);
    fputc('\'', m);
    return true;
}

void cli_gp_real(FILE *m, double x)
{
    char buf[CLI_NUM_LEN];
    cli_fmt_g17(buf, x);
    fputs(buf, m);
    if (!strpbrk(buf, ".eE"))
        fputs(".0", m);
}

const char *cli_gp_path_check(const char *path)
{
    for (const char *c = path; *c; c += strcspn(c, "/"), c += *c == '/')
        if (*c == '|' || *c == '<')
            return *c == '|' ? "has a part beginning with '|', which gnuplot reads as a command to "
                               "write to: srlab refuses such a name (rename it)"
                             : "has a part beginning with '<', which gnuplot reads as a command to "
                               "read from: srlab refuses such a name (rename it)";
    return NULL;
}

/* ---- the private folder ---- */

/* A fixed name for a file of the folder: letters, digits, '.', '_', '-', not starting with '.' or
 * '-' (never an option of gnuplot, never hidden). */
static bool plain(const char *name)
{
    if (!*name || *name == '.' || *name == '-' || strlen(name) > 64)
        return false;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-'))
            return false;
    return true;
}

int cli_gp_open(cli_gp *g, const char *cmd)
{
    memset(g, 0, sizeof *g);
    g->cmd = cmd;
    g->dir_slot = -1;
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = "/tmp";
    char cwd[4096] = "";
    if (base[0] != '/' && !getcwd(cwd, sizeof cwd)) /* HOME and TMPDIR of gnuplot: absolute */
        return cli_sys_error(cmd, "cannot find the current folder: %s", strerror(errno));
    g->dir = cli_alloc_printf("%s%s%s/srlab-gnuplot-XXXXXX", cwd, cwd[0] ? "/" : "", base);
    if (!g->dir)
        return cli_sys_error(cmd, "out of memory");
    if (!mkdtemp(g->dir)) { /* mode 0700 */
        int rc = cli_sys_error(cmd, "cannot make a private folder for gnuplot in %s: %s", base,
                               strerror(errno));
        free(g->dir);
        g->dir = NULL;
        return rc;
    }
    g->dir_slot = cli_tmp_register(g->dir);
    return 0;
}

/* Add `name` to the files of the folder (registered for removal on a signal). */
static int add_file(cli_gp *g, const char *name, const char *shown)
{
    if (!plain(name) || cli_gp_has(g, name) || g->nfiles == CLI_GP_FILES)
        return cli_sys_error(g->cmd, "internal error: gnuplot's folder cannot take '%s'", name);
    cli_gp_file *f = &g->files[g->nfiles];
    f->name = strdup(name);
    f->shown = shown ? strdup(shown) : NULL;
    char *path = cli_host_path(g->dir, name);
    if (!f->name || (shown && !f->shown) || !path) {
        free(f->name), free(f->shown), free(path);
        return cli_sys_error(g->cmd, "out of memory");
    }
    f->slot = cli_tmp_register(path);
    free(path);
    g->nfiles++;
    return 0;
}

bool cli_gp_has(const cli_gp *g, const char *name)
{
    for (size_t i = 0; i < g->nfiles; i++)
        if (!strcmp(g->files[i].name, name))
            return true;
    return false;
}

int cli_gp_expect(cli_gp *g, const char *name, const char *shown)
{
    return add_file(g, name, shown);
}

int cli_gp_put(cli_gp *g, const char *name, const char *shown, const void *data, size_t len)
{
    int rc = add_file(g, name, shown);
    if (rc)
        return rc;
    char *path = cli_host_path(g->dir, name);
    if (!path)
        return cli_sys_error(g->cmd, "out of memory");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), e = 0;
    for (const char *p = data; fd >= 0 && len && !e;) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            e = w < 0 ? errno : EIO;
        else
            p += w, len -= (size_t)w;
    }
    if (fd < 0 || (close(fd) != 0 && !e) || e)
        rc = cli_sys_error(g->cmd, "cannot write %s: %s", path, strerror(e ? e : errno));
    free(path);
    return rc;
}

/* ---- the CSV copy ---- */

#define SEP_SUBST "\xe2\x80\x9a" /* U+201A, for a comma inside a field */

/* Append n bytes to the growing buffer out (cap: enough for every call, see below). */
static void put_bytes(char *out, size_t *k, const char *s, size_t n)
{
    memcpy(out + *k, s, n);
    *k += n;
}

/* One data line [s, e) (no newline) as gnuplot can read it, appended to out; NULL, or why not. */
static const char *csv_line(const char *s, const char *e, char *out, size_t *k)
{
    for (const char *c = s;;) {
        if (c < e && *c == '"') { /* a quoted field: "" is a quote, the field ends at a lone " */
            /* the guard srlab's writer puts before a text that a spreadsheet would take for a
             * formula ("'-x", srl_csv_field) is not part of the text: where= and labels see the
             * text as srlab's readers do (srl_csv_value) */
            if (e - c >= 4 && c[1] == '\'' && strchr("=+-@\t\r'", c[2]) && c[2])
                c++;
            for (c++;; c++) {
                if (c == e)
                    return "a quoted field does not end on its line (gnuplot reads a line at a "
                           "time)";
                if (*c == '"' && !(c + 1 < e && c[1] == '"'))
                    break;
                if (*c == '"')
                    return "a field holds a double quote, which gnuplot cannot read";
                if (*c == ',')
                    put_bytes(out, k, SEP_SUBST, 3);
                else
                    put_bytes(out, k, c, 1);
            }
            c++;
            if (c < e && *c != ',')
                return "text follows a quoted field";
        } else {
            const char *f = c;
            while (c < e && *c != ',')
                if (*c++ == '"')
                    return "a field holds a double quote, which gnuplot cannot read";
            put_bytes(out, k, f, (size_t)(c - f));
        }
        if (c == e)
            return NULL;
        put_bytes(out, k, ",", 1);
        c++;
    }
}

int cli_gp_csv(const char *data, size_t len, char **out, size_t *outlen, size_t *line,
               const char **why)
{
    *why = NULL;
    *line = 1;
    /* each byte becomes at most 3 (a comma in a field), plus the first line and a newline */
    char *o = len <= (SIZE_MAX - 128) / 3 ? malloc(3 * len + 128) : NULL;
    if (!(*out = o))
        return ENOMEM;
    /* a first comment line: plots/common.gpi reads the '#' lines in a pass of their own, which
     * gnuplot warns about when it finds none */
    static const char first[] = "# srlab plot: the data as gnuplot reads it (src/cli/gnuplot.c)\n";
    size_t k = 0;
    const char *end = data + len;
    put_bytes(o, &k, first, sizeof first - 1);
    for (const char *s = data; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        const char *te = e > s && e[-1] == '\r' ? e - 1 : e;
        if (memchr(s, '\0', (size_t)(e - s)))
            *why = "holds a NUL byte";
        else if (*s == '#' || te == s)
            put_bytes(o, &k, s, (size_t)(te - s));
        else
            *why = csv_line(s, te, o, &k);
        if (*why) {
            free(o);
            *out = NULL;
            return -1;
        }
        put_bytes(o, &k, "\n", 1);
        s = nl ? nl + 1 : end;
        ++*line;
    }
    *outlen = k;
    return 0;
}

/* ---- running gnuplot ---- */

/* This environment without what gnuplot or the libraries it loads would read beyond the folder
 * (GNUPLOT_*: its library path, driver and init files; GNUTERM; XDG_*: config and cache
 * folders), with HOME and TMPDIR the folder: malloc'd, the two new strings in own[2]; NULL when
 * out of memory. */
static char **child_env(const cli_gp *g, char *own[2])
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    own[0] = cli_alloc_printf("HOME=%s", g->dir);
    own[1] = cli_alloc_printf("TMPDIR=%s", g->dir);
    if (!env || !own[0] || !own[1]) {
        free(env), free(own[0]), free(own[1]);
        return NULL;
    }
    static const char *const drop[] = {"GNUPLOT", "GNUTERM", "XDG_", "HOME=", "TMPDIR="};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool keep = true;
        for (size_t d = 0; d < sizeof drop / sizeof *drop; d++)
            keep = keep && strncmp(environ[i], drop[d], strlen(drop[d])) != 0;
        if (keep)
            env[k++] = environ[i];
    }
    env[k++] = own[0];
    env[k++] = own[1];
    env[k] = NULL;
    return env;
}

/* Print gnuplot's messages (len bytes) on stderr: the folder's fixed names as the user knows the
 * files, U+201A as the comma it stands for, at most 64 KiB; each line written as srlab's own
 * messages are (cli_fputs_text: a control character, a byte that is not UTF-8, an invisible or
 * reordering character as an escape), since gnuplot echoes the data and the user's names. */
static void print_messages(const cli_gp *g, const char *log, size_t len)
{
    const size_t max = (size_t)64 << 10, shown_max = len < max ? len : max;
    size_t grow = 1; /* the most bytes a byte of the log becomes (a fixed name as the user's) */
    for (size_t f = 0; f < g->nfiles; f++)
        if (g->files[f].shown) {
            const size_t n = strlen(g->files[f].name), k = strlen(g->files[f].shown);
            if (n && (k + n - 1) / n > grow)
                grow = (k + n - 1) / n;
        }
    const size_t cap = grow * shown_max + 1;
    char *out = malloc(cap), *o = out;
    if (!out) {
        cli_note(NULL, "(out of memory for gnuplot's messages)");
        return;
    }
    for (size_t i = 0; i < shown_max;) {
        size_t best = 0;
        const char *shown = NULL;
        for (size_t f = 0; f < g->nfiles; f++) {
            size_t n = strlen(g->files[f].name);
            if (g->files[f].shown && n > best && n <= shown_max - i && !memcmp(log + i, g->files[f].name, n))
                best = n, shown = g->files[f].shown;
        }
        if (shown) {
            const size_t k = strlen(shown);
            memcpy(o, shown, k);
            o += k;
            i += best;
        } else if (len - i >= 3 && !memcmp(log + i, SEP_SUBST, 3)) {
            *o++ = ',';
            i += 3;
        } else {
            *o++ = log[i] ? log[i] : '\n'; /* a NUL ends no message early */
            i++;
        }
    }
    *o = 0;
    for (char *line = out; *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        cli_fputs_text(stderr, line);
        fputc('\n', stderr);
        line = nl ? nl + 1 : line + strlen(line);
    }
    free(out);
    if (len > max)
        fprintf(stderr, "... (%zu more bytes of gnuplot's messages)\n", len - max);
}

/* The first entry of the folder it does not name (besides .cache, where fontconfig may keep
 * its cache under HOME), malloc'd into *extra, or NULL. Returns 0 or an errno value. */
static int stray_entry(const cli_gp *g, char **extra)
{
    *extra = NULL;
    DIR *d = opendir(g->dir);
    if (!d)
        return errno;
    for (struct dirent *de; (de = readdir(d)) != NULL && !*extra;) {
        const char *n = de->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".cache") || cli_gp_has(g, n))
            continue;
        if (!(*extra = strdup(n))) {
            closedir(d);
            return ENOMEM;
        }
    }
    closedir(d);
    return 0;
}

int cli_gp_run(cli_gp *g, const char *script, const char *expr, cli_host_exit *e)
{
    static const char log_name[] = "srlab-gnuplot.log";
    int rc = cli_gp_expect(g, log_name, NULL);
    if (rc)
        return rc;
    char *log_path = cli_host_path(g->dir, log_name), *own[2];
    char **env = child_env(g, own);
    if (!log_path || !env) {
        free(log_path);
        if (env)
            free(env), free(own[0]), free(own[1]);
        return cli_sys_error(g->cmd, "out of memory");
    }
    int fd = open(log_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), err = 0;
    char *argv[] = {"gnuplot", "-d", expr ? "-e" : (char *)script, (char *)expr,
                    expr ? (char *)script : NULL, NULL};
    const cli_host_child child = {"gnuplot", true, argv, g->dir, fd, true,
                                  "srlab: gnuplot cannot enter its private folder\n",
                                  "srlab: gnuplot cannot be started\n", env};
    pid_t pid;
    if (fd < 0)
        rc = cli_sys_error(g->cmd, "cannot write %s: %s", log_path, strerror(errno));
    else if ((err = cli_host_spawn(&child, &pid)))
        rc = cli_sys_error(g->cmd, "cannot start gnuplot: %s", strerror(err));
    else if ((err = cli_host_wait(pid, e)))
        rc = cli_sys_error(g->cmd, "waiting for gnuplot: %s", strerror(err));
    free(env), free(own[0]), free(own[1]);
    size_t len = 0;
    char *log = fd >= 0 ? cli_host_read(g->dir, log_name, &len) : NULL;
    if (log)
        print_messages(g, log, len);
    free(log);
    if (fd >= 0)
        close(fd);
    free(log_path);
    if (rc)
        return rc;
    char *extra;
    if ((err = stray_entry(g, &extra)))
        return cli_sys_error(g->cmd, "cannot list gnuplot's folder %s: %s", g->dir, strerror(err));
    if (extra) {
        char q[CLI_QUOTE_LEN];
        rc = cli_sys_error(g->cmd, "gnuplot wrote %s, a file srlab did not ask for: nothing is kept "
                           "(a plot script may write only its figure and debug files)",
                           cli_quote(q, sizeof q, extra, strlen(extra), CLI_QUOTE_MAX));
        free(extra);
    }
    return rc;
}

/* ---- the drawing ---- */

/* Does "<svg" occur in the first n bytes of d? */
static bool has_svg_tag(const unsigned char *d, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (!memcmp(d + i, "<svg", 4))
            return true;
    return false;
}

/* Does the drawing (len bytes) start and end as a whole file of its kind does? */
static bool whole(const char *kind, const unsigned char *d, size_t len)
{
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    size_t t = len; /* the end without trailing white space (SVG, PDF, text) */
    while (t && (d[t - 1] == '\n' || d[t - 1] == '\r' || d[t - 1] == ' ' || d[t - 1] == '\t'))
        t--;
    if (!strcmp(kind, "png"))
        return len >= 8 + 25 + 12 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8) &&
               !memcmp(d + len - 12, iend, 12);
    if (!strcmp(kind, "pdf"))
        return len > 10 && !memcmp(d, "%PDF-", 5) && t >= 5 && !memcmp(d + t - 5, "%%EOF", 5);
    if (!strcmp(kind, "svg"))
        return len > 10 && has_svg_tag(d, len < 512 ? len : 512) && t >= 6 &&
               !memcmp(d + t - 6, "</svg>", 6);
    return len > 0 && d[len - 1] == '\n'; /* "txt" */
}

/* Whether the file system of the folder dir has no room left (blocks, or inodes where it counts
 * them): gnuplot exits 0 after a write failed, so a missing or cut drawing is read this way. */
static bool no_room(const char *dir)
{
    struct statvfs v;
    return statvfs(dir, &v) == 0 && (v.f_bavail == 0 || (v.f_files && !v.f_favail));
}

int cli_gp_take(cli_gp *g, const char *name, const char *kind, const char *what, FILE *to)
{
    size_t len = 0;
    char *d = cli_gp_has(g, name) ? cli_host_read(g->dir, name, &len) : NULL;
    int rc = 0;
    if ((!d || !len || !whole(kind, (const unsigned char *)d, len)) && no_room(g->dir))
        rc = cli_sys_error(g->cmd, "%s: gnuplot could not finish the drawing in %s: %s", what,
                           g->dir, strerror(ENOSPC));
    else if (!d || !len)
        rc = cli_error(g->cmd, "%s: gnuplot drew nothing", what);
    else if (len > CLI_READ_MAX)
        rc = cli_error(g->cmd, "%s: gnuplot drew %zu bytes, more than srlab takes (%zu)", what,
                       len, CLI_READ_MAX);
    else if (!whole(kind, (const unsigned char *)d, len))
        rc = cli_error(g->cmd, "%s: what gnuplot drew (%zu bytes) is not a whole %s file", what,
                       len, !strcmp(kind, "txt") ? "text" : kind);
    else if (fwrite(d, 1, len, to) != len)
        rc = cli_sys_error(g->cmd, "%s: cannot copy the drawing: %s", what, strerror(errno));
    free(d);
    return rc;
}

/* ---- removal ---- */

/* Remove `name` in the folder open as dfd, a whole tree if it is one (links not followed). */
static void remove_tree(int dfd, const char *name, int depth)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (S_ISDIR(st.st_mode) && depth < 16) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (d) {
            for (struct dirent *de; (de = readdir(d)) != NULL;)
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                    remove_tree(fd, de->d_name, depth + 1);
            closedir(d);
        } else if (fd >= 0) {
            close(fd);
        }
        unlinkat(dfd, name, AT_REMOVEDIR);
    } else {
        unlinkat(dfd, name, 0);
    }
}

void cli_gp_close(cli_gp *g)
{
    if (g->dir) {
        int fd = open(g->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (d) { /* everything, whether srlab named it or not */
            for (struct dirent *de; (de = readdir(d)) != NULL;)
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                    remove_tree(fd, de->d_name, 0);
            closedir(d);
        } else if (fd >= 0) {
            close(fd);
        }
        rmdir(g->dir);
    }
    for (size_t i = 0; i < g->nfiles; i++) {
        cli_tmp_unregister(g->files[i].slot);
        free(g->files[i].name);
        free(g->files[i].shown);
    }
    cli_tmp_unregister(g->dir_slot);
    free(g->dir);
    memset(g, 0, sizeof *g);
    g->dir_slot = -1;
}
