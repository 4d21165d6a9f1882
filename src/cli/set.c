/* src/cli/set.c: output sets written as one transaction under one lock, recovered by the next
 * lock holder, checked by their readers (the protocol and its reasons are in src/cli/set.h).
 * Phases: the lock (cli_lock_take/release); the names (cli_set_init); recovery, which is also
 * the second half of every commit (roll_forward, remove_temporaries); the commit (stamp_of,
 * write_temporary, record_text, cli_set_commit); readers' check (cli_set_stamp, cli_set_check). */
#include "cli/set.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep_cli.h"
#include "srlab/rng.h"   /* srl_fnv1a64 */
#include "srlab/sweep.h" /* SRL_SWEEP_SET_LINE */

#define RECORD_MAGIC "srlab-set-commit 1\n"
#define RECORD_MAX 65536 /* a record names at most three members and their temporaries */
#define TMP_MARK ".tmp-set-"  /* .MEMBER.tmp-set-XXXXXX: a set's temporary file */

/* ---- locks ---- */

int cli_lock_take(cli_lock *l, const char *cmd, const char *what, const char *path,
                  const char *busy)
{
    char q[CLI_QUOTE_LEN];
    l->fd = -1;
    if (!(l->path = strdup(path)))
        return cli_sys_error(cmd, "out of memory");
    cli_quote(q, sizeof q, path, strlen(path), 200);
    for (int tries = 0; tries < 8; tries++) {
        struct stat held, now;
        /* the output rule (cli.h): a lock file is a regular file, never a link or a device */
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY,
                      0666);
        if (fd < 0 && errno == ELOOP)
            return cli_error(cmd, "%s: %s is a symbolic link: srlab does not write through links "
                             "(give the path of the file itself)", what, q);
        if (fd < 0)
            return cli_sys_error(cmd, "cannot open %s: %s", q, strerror(errno));
        if (fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) {
            close(fd);
            return cli_error(cmd, "%s: %s is not a regular file: srlab's lock and journal files "
                             "are", what, q);
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close(fd);
            if (e == EWOULDBLOCK)
                return cli_error(cmd, "%s is in use: %s", q, busy);
            return cli_sys_error(cmd, "cannot lock %s: %s", q, strerror(e));
        }
        if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
            held.st_ino == now.st_ino) {
            l->fd = fd;
            l->dev = held.st_dev;
            l->ino = held.st_ino;
            return 0;
        }
        close(fd); /* the file we locked was removed meanwhile: lock the one there now */
    }
    return cli_sys_error(cmd, "cannot lock %s: it keeps being replaced", q);
}

void cli_lock_release(cli_lock *l)
{
    if (!l)
        return;
    struct stat held, now;
    /* Only the holder removes the file, and only the file it holds: another process that got a
     * lock meanwhile holds a new file of that name, which stays. */
    if (l->fd >= 0 && fstat(l->fd, &held) == 0 && held.st_size == 0 && l->path &&
        stat(l->path, &now) == 0 && now.st_dev == l->dev && now.st_ino == l->ino)
        unlink(l->path);
    if (l->fd >= 0)
        close(l->fd); /* unlocks */
    l->fd = -1;
    free(l->path);
    l->path = NULL;
}

/* ---- names ---- */

char *cli_sweep_sibling(const char *out, const char *suffix)
{
    size_t n = strlen(out);
    if (n > 4 && !strcmp(out + n - 4, ".csv"))
        n -= 4;
    char *s = malloc(n + strlen(suffix) + 1);
    if (s) {
        memcpy(s, out, n);
        strcpy(s + n, suffix);
    }
    return s;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int cli_set_init(cli_set *s, const char *cmd, const char *out)
{
    char q[CLI_QUOTE_LEN];
    *s = (cli_set){cmd, NULL, NULL, NULL, NULL, NULL, {-1, NULL, 0, 0}};
    s->rows = strdup(out);
    s->runs = cli_sweep_sibling(out, ".runs.csv");
    s->summary = cli_sweep_sibling(out, ".summary.csv");
    s->journal = cli_sweep_sibling(out, ".journal");
    s->commit = cli_sweep_sibling(out, ".commit");
    if (!s->rows || !s->runs || !s->summary || !s->journal || !s->commit)
        return cli_sys_error(cmd, "out of memory");
    /* A rows file named as a runs or summary file would be a member of two sets (x.runs.csv of
     * set x, and the rows of set x.runs), and readers take a file's part from its name. */
    const size_t n = strlen(out);
    const bool runs_name = n > 9 && !strcmp(out + n - 9, ".runs.csv");
    const bool summary_name = n > 12 && !strcmp(out + n - 12, ".summary.csv");
    if (!strcmp(s->summary, out) || !strcmp(s->runs, out) || runs_name || summary_name)
        return cli_error(cmd, "-o: %s names a runs or summary file: name the rows file (the runs "
                         "and summary files are written beside it)",
                         cli_quote(q, sizeof q, out, strlen(out), 200));
    return 0;
}

int cli_set_check_paths(const cli_set *s, bool summary)
{
    static const char why[] = "a sweep writes its runs and summary files beside it (give a "
                              "file name)";
    int rc = cli_out_check_dir(s->cmd, "-o", s->rows); /* creates nothing */
    if (!rc)
        rc = cli_out_check_file(s->cmd, "-o", s->rows, why);
    if (!rc)
        rc = cli_out_check_file(s->cmd, "-o", s->runs, why);
    if (!rc && summary)
        rc = cli_out_check_file(s->cmd, "-o", s->summary, why);
    return rc;
}

void cli_set_free(cli_set *s)
{
    cli_lock_release(&s->lock);
    free(s->rows);
    free(s->runs);
    free(s->summary);
    free(s->journal);
    free(s->commit);
    s->rows = s->runs = s->summary = s->journal = s->commit = NULL;
}

/* ---- the commit record ----
 *   srlab-set-commit 1
 *   set HEX
 *   put N:TEMPORARY N:MEMBER      (one per member: rename the first over the second)
 *   drop N:MEMBER                 (a member the new set has not: remove it)
 *   end FNV                       (FNV-1a 64 of every byte before this line, 16 hex digits)
 * Names are the files' names in the set's folder, each after its length (any byte but '/'). */

typedef struct record {
    char *tmp[3], *member[3]; /* put */
    size_t nput;
    char *drop;
} record;

static void record_free(record *r)
{
    for (size_t k = 0; k < r->nput; k++) {
        free(r->tmp[k]);
        free(r->member[k]);
    }
    free(r->drop);
    memset(r, 0, sizeof *r);
}

/* "N:NAME" at *p (before end), then one ' ' or '\n' (consumed); malloc'd, or NULL. */
static char *take_name(const char **p, const char *end)
{
    char *e;
    errno = 0;
    unsigned long n = strtoul(*p, &e, 10);
    if (errno || e == *p || e >= end || *e != ':' || n == 0 || n > 4096 ||
        (size_t)(end - e - 1) < n + 1)
        return NULL;
    const char *name = e + 1;
    if (memchr(name, '/', n) || memchr(name, 0, n) || (name[n] != ' ' && name[n] != '\n'))
        return NULL;
    *p = name + n + 1;
    return strndup(name, n);
}

/* Is name a member of s (its file name in the folder)? */
static bool is_member(const cli_set *s, const char *name)
{
    return !strcmp(name, base_name(s->rows)) || !strcmp(name, base_name(s->runs)) ||
           !strcmp(name, base_name(s->summary));
}

/* Is name one of s's temporary files: ".MEMBER.tmp-set-XXXXXX" for member (a file name) or,
 * when member is NULL, any member or the record? */
static bool is_temporary(const cli_set *s, const char *name, const char *member)
{
    const char *m[4] = {base_name(s->rows), base_name(s->runs), base_name(s->summary),
                        base_name(s->commit)};
    const size_t mark = strlen(TMP_MARK), n = strlen(name);
    for (int k = 0; k < 4; k++) {
        const char *b = member ? member : m[k];
        const size_t bl = strlen(b);
        if (n == 1 + bl + mark + 6 && name[0] == '.' && !memcmp(name + 1, b, bl) &&
            !memcmp(name + 1 + bl, TMP_MARK, mark))
            return true;
        if (member)
            break;
    }
    return false;
}

/* Parse and verify a record (text of len bytes) of set s; 0, or a description of the damage. */
static const char *record_parse(const cli_set *s, const char *text, size_t len, record *r)
{
    const size_t ml = strlen(RECORD_MAGIC);
    const char *endl = NULL;
    if (len < ml || memcmp(text, RECORD_MAGIC, ml))
        return "it does not start as a commit record";
    for (const char *p = text + len - 1; p > text && !endl; p--) /* the last line */
        if (p[-1] == '\n')
            endl = p;
    char want[32], got[32];
    snprintf(want, sizeof want, "end %016" PRIx64 "\n",
             endl ? srl_fnv1a64(text, (size_t)(endl - text), SRL_FNV1A64_BASIS) : 0);
    snprintf(got, sizeof got, "%.*s", endl ? (int)(text + len - endl) : 0, endl ? endl : "");
    if (!endl || text[len - 1] != '\n' || strcmp(want, got))
        return "its checksum does not match";
    const char *p = text + ml, *end = endl;
    if ((size_t)(end - p) < 22 || memcmp(p, "set ", 4) || p[20] != '\n')
        return "no set line";
    p += 21;
    while (p < end) {
        if (!strncmp(p, "put ", 4) && r->nput < 3) {
            p += 4;
            char *t = take_name(&p, end), *m = t ? take_name(&p, end) : NULL;
            r->tmp[r->nput] = t;
            r->member[r->nput++] = m;
            if (!m || p[-1] != '\n' || !is_member(s, m) || !is_temporary(s, t, m))
                return "a put line that does not name a member and its temporary file";
        } else if (!strncmp(p, "drop ", 5) && !r->drop) {
            p += 5;
            r->drop = take_name(&p, end);
            if (!r->drop || p[-1] != '\n' || !is_member(s, r->drop))
                return "a drop line that does not name a member";
        } else {
            return "a line that is not put or drop";
        }
    }
    return r->nput ? NULL : "no member";
}

/* ---- recovery (also the end of every commit) ---- */

/* dir/name, malloc'd. */
static char *in_dir(const char *dir, const char *name)
{
    return cli_alloc_printf("%s/%s", dir, name);
}

/* Read the record of s into *text (NULL when there is none); 0 or an errno value. */
static int record_read(const cli_set *s, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd = open(s->commit, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return errno == ENOENT ? 0 : errno;
    char *buf = malloc(RECORD_MAX + 1);
    size_t n = 0;
    int e = buf ? 0 : ENOMEM;
    while (!e && n <= RECORD_MAX) {
        ssize_t k = read(fd, buf + n, RECORD_MAX + 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            e = errno;
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    if (e) {
        free(buf);
        return e;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* Complete the commit NAME.commit records, if there is one: each temporary renamed over its
 * member (one already renamed is done), the dropped member removed, the folder synced, the record
 * removed. Returns 0 or an exit status after a message; *done: a record was completed. */
static int roll_forward(cli_set *s, bool *done)
{
    char q[CLI_QUOTE_LEN];
    char *text;
    size_t len;
    record r = {0};
    *done = false;
    cli_quote(q, sizeof q, s->commit, strlen(s->commit), 200);
    int e = record_read(s, &text, &len);
    if (e)
        return cli_sys_error(s->cmd, "cannot read %s: %s", q, strerror(e));
    if (!text)
        return 0;
    const char *bad = len > RECORD_MAX ? "it is too long" : record_parse(s, text, len, &r);
    free(text);
    if (bad) {
        record_free(&r);
        return cli_error(s->cmd, "%s is damaged (%s): the set beside it may be half replaced; "
                         "remove %s and write the set again", q, bad, q);
    }
    char *dir = cli_dir_name(s->commit);
    int rc = dir ? 0 : cli_sys_error(s->cmd, "out of memory");
    for (size_t k = 0; k < r.nput && !rc; k++) {
        char *from = in_dir(dir, r.tmp[k]), *to = in_dir(dir, r.member[k]);
        struct stat sb;
        if (!from || !to)
            rc = cli_sys_error(s->cmd, "out of memory");
        else if (rename(from, to) != 0 && !(errno == ENOENT && lstat(to, &sb) == 0))
            rc = cli_sys_error(s->cmd, "cannot complete the commit %s: %s: %s", q, to,
                               strerror(errno));
        free(from);
        free(to);
    }
    if (!rc && r.drop) {
        char *p = in_dir(dir, r.drop);
        if (!p)
            rc = cli_sys_error(s->cmd, "out of memory");
        else if (unlink(p) != 0 && errno != ENOENT)
            rc = cli_sys_error(s->cmd, "cannot complete the commit %s: cannot remove %s: %s", q,
                               p, strerror(errno));
        free(p);
    }
    /* the members in place before the record goes: the folder synced between */
    if (!rc && (e = cli_sync_dir(s->commit)))
        rc = cli_sys_error(s->cmd, "cannot complete the commit %s: syncing its folder: %s", q,
                           strerror(e));
    if (!rc && unlink(s->commit) != 0)
        rc = cli_sys_error(s->cmd, "cannot remove %s: %s", q, strerror(errno));
    if (!rc && (e = cli_sync_dir(s->commit)))
        rc = cli_sys_error(s->cmd, "%s is removed, but its folder cannot be synced: %s", q,
                           strerror(e));
    free(dir);
    record_free(&r);
    *done = !rc;
    return rc;
}

/* Is name one of the set ctx's temporary files? */
static bool set_temporary(const char *name, const void *ctx)
{
    return is_temporary(ctx, name, NULL);
}

/* Remove the temporary files of s no record names (a writer killed before its commit); best
 * effort: a folder that cannot be listed keeps them (they are hidden and harmless). */
static void remove_temporaries(const cli_set *s)
{
    cli_remove_matching(s->commit, set_temporary, s);
}

int cli_set_lock(cli_set *s)
{
    int rc = cli_lock_take(&s->lock, s->cmd, "-o", s->journal,
                           "another srlab sweep or merge is writing this output now; wait for it "
                           "to finish (or stop it; a sweep then continues with --resume)");
    bool done = false;
    if (!rc)
        rc = roll_forward(s, &done);
    if (!rc && done) {
        char q[CLI_QUOTE_LEN];
        fprintf(stderr, "srlab %s: %s: completed the commit of a set an interrupted srlab left "
                "half replaced\n", s->cmd, cli_quote(q, sizeof q, s->commit,
                                                     strlen(s->commit), 200));
    }
    if (!rc)
        remove_temporaries(s);
    return rc;
}

/* ---- the commit ---- */

/* The length of text's leading '#' lines (where the stamp line goes). */
static size_t head_len(const char *text, size_t len)
{
    size_t pos = 0;
    while (pos < len && text[pos] == '#') {
        const char *nl = memchr(text + pos, '\n', len - pos);
        if (!nl)
            return pos;
        pos = (size_t)(nl - text) + 1;
    }
    return pos;
}

/* The stamp of the members' texts (set.h: FNV-1a 64 over role, length and text of each). */
static void stamp_of(const char *const *text, const size_t *len, size_t n, char hex[17])
{
    static const char *const role[3] = {"rows", "runs", "summary"};
    uint64_t h = SRL_FNV1A64_BASIS;
    for (size_t k = 0; k < n; k++) {
        char tag[64];
        int tl = snprintf(tag, sizeof tag, "%s %zu\n", role[k], len[k]);
        h = srl_fnv1a64(tag, (size_t)tl, h);
        h = srl_fnv1a64(text[k], len[k], h);
    }
    snprintf(hex, 17, "%016" PRIx64, h);
}

/* A temporary file beside `target` holding parts[0..np) (each len bytes), with target's
 * permissions-to-be, fsync'ed and closed, every call checked; its path into *tmp and its signal
 * slot into *slot. Returns 0 or the errno. */
static int write_temporary(const char *target, const char *const *parts, const size_t *lens,
                           size_t np, char **tmp, int *slot)
{
    char *dir = cli_dir_name(target);
    *tmp = dir ? cli_alloc_printf("%s/.%s" TMP_MARK "XXXXXX", dir, base_name(target)) : NULL;
    free(dir);
    *slot = -1;
    if (!*tmp)
        return ENOMEM;
    int fd = mkstemp(*tmp), e = fd < 0 ? errno : 0;
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return e;
    }
    *slot = cli_tmp_register(*tmp);
    for (size_t k = 0; k < np && !e; k++)
        e = cli_write_all(fd, parts[k], lens[k]);
    if (!e && fchmod(fd, cli_out_mode(target)) != 0)
        e = errno;
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    return e;
}

/* The temporaries written so far, removed (a commit that failed before its record). */
static void discard(char **tmp, int *slot, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (tmp[k])
            unlink(tmp[k]);
        cli_tmp_unregister(slot[k]);
        free(tmp[k]);
        tmp[k] = NULL;
        slot[k] = -1;
    }
}

/* The record of a commit: each temporary and its member, the member to drop. malloc'd. */
static char *record_text(const char *hex, char *const *tmp, const char *const *member, size_t n,
                         const char *drop, size_t *len)
{
    char *t = NULL;
    size_t tl = 0;
    FILE *m = open_memstream(&t, &tl);
    if (!m)
        return NULL;
    fprintf(m, "%sset %s\n", RECORD_MAGIC, hex);
    for (size_t k = 0; k < n; k++) {
        const char *a = base_name(tmp[k]), *b = base_name(member[k]);
        fprintf(m, "put %zu:%s %zu:%s\n", strlen(a), a, strlen(b), b);
    }
    if (drop)
        fprintf(m, "drop %zu:%s\n", strlen(base_name(drop)), base_name(drop));
    if (fflush(m) != 0)
        tl = 0;
    else
        fprintf(m, "end %016" PRIx64 "\n", srl_fnv1a64(t, tl, SRL_FNV1A64_BASIS));
    if (fclose(m) != 0 || !tl) {
        free(t);
        return NULL;
    }
    *len = tl;
    return t;
}

int cli_set_commit(cli_set *s, const char *rows, size_t rows_len, const char *runs,
                   size_t runs_len, const char *summary, size_t summary_len)
{
    char q[CLI_QUOTE_LEN], hex[17];
    const char *text[3] = {rows, runs, summary}, *path[3] = {s->rows, s->runs, s->summary};
    const size_t len[3] = {rows_len, runs_len, summary_len}, n = summary ? 3 : 2;
    static const char why[] = "the files of a sweep are regular files srlab replaces";
    struct stat sb;
    /* 1. every member's path, and the summary a set without one removes */
    const char *drop = !summary && lstat(s->summary, &sb) == 0 ? s->summary : NULL;
    int rc = 0;
    for (size_t k = 0; k < n && !rc; k++)
        rc = cli_out_check_file(s->cmd, "-o", path[k], why);
    if (!rc && drop)
        rc = cli_out_check_file(s->cmd, "-o", drop, why);
    if (rc)
        return rc;
    /* 2. the members, stamped */
    stamp_of(text, len, n, hex);
    char line[64];
    const size_t ll = (size_t)snprintf(line, sizeof line, SRL_SWEEP_SET_LINE "%s\n", hex);
    char *tmp[4] = {NULL, NULL, NULL, NULL};
    int slot[4] = {-1, -1, -1, -1}, e = 0;
    size_t made = 0;
    for (; made < n && !e; made++) {
        const size_t h = head_len(text[made], len[made]);
        const char *parts[3] = {text[made], line, text[made] + h};
        const size_t lens[3] = {h, ll, len[made] - h};
        e = write_temporary(path[made], parts, lens, 3, &tmp[made], &slot[made]);
    }
    if (e) {
        rc = cli_sys_error(s->cmd, "cannot write %s: %s",
                           cli_quote(q, sizeof q, path[made - 1], strlen(path[made - 1]), 200),
                           strerror(e));
        discard(tmp, slot, made);
        return rc;
    }
    /* 3. the record, renamed into place: the commit */
    size_t rl = 0;
    char *rec = record_text(hex, tmp, path, n, drop, &rl);
    cli_quote(q, sizeof q, s->commit, strlen(s->commit), 200);
    if (!rec) {
        discard(tmp, slot, n);
        return cli_sys_error(s->cmd, "out of memory");
    }
    const char *rparts[1] = {rec};
    e = write_temporary(s->commit, rparts, &rl, 1, &tmp[n], &slot[n]);
    free(rec);
    for (size_t k = 0; k < n && !e; k++) { /* from here a signal leaves them to roll forward */
        cli_tmp_unregister(slot[k]);
        slot[k] = -1;
    }
    if (!e && rename(tmp[n], s->commit) != 0)
        e = errno;
    if (e) {
        rc = cli_sys_error(s->cmd, "cannot write %s: %s", q, strerror(e));
        discard(tmp, slot, n + 1);
        return rc;
    }
    cli_tmp_unregister(slot[n]);
    for (size_t k = 0; k <= n; k++)
        free(tmp[k]);
    if ((e = cli_sync_dir(s->commit)))
        return cli_sys_error(s->cmd, "cannot commit %s: syncing its folder: %s (the next srlab "
                             "sweep or merge on it completes the commit)", q, strerror(e));
    /* 4. the members into place: what recovery does */
    bool done;
    return roll_forward(s, &done);
}

/* ---- readers ---- */

/* The stamp line among the '#' lines at the start of text: 1 (hex set), 0 (none), -1 (damaged). */
static int stamp_in(const char *text, size_t len, char hex[17])
{
    const size_t pl = sizeof SRL_SWEEP_SET_LINE - 1, h = head_len(text, len);
    for (size_t pos = 0; pos < h;) {
        const char *l = text + pos, *nl = memchr(l, '\n', h - pos);
        size_t n = (size_t)(nl - l);
        pos += n + 1;
        if (n && l[n - 1] == '\r')
            n--; /* a copy converted to CR LF: the stamp is still the set's, and the readers
                  * refuse the line ending by name (srl__sw_check_text) */
        if (n < pl || memcmp(l, SRL_SWEEP_SET_LINE, pl))
            continue;
        if (n != pl + 16 || strspn(l + pl, "0123456789abcdef") < 16)
            return -1;
        memcpy(hex, l + pl, 16);
        hex[16] = 0;
        return 1;
    }
    return 0;
}

bool cli_set_stamp(const char *text, size_t len, char hex[17])
{
    return stamp_in(text, len, hex) == 1;
}

/* The stamp of the file path from its '#' lines (read up to the first other line): as
 * stamp_in; -2 when it is not a regular file that can be read (not a member to compare). */
static int stamp_of_file(const char *path, char hex[17])
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return -2;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return -2;
    char *buf = NULL, *line = NULL;
    size_t len = 0, cap = 0;
    FILE *m = open_memstream(&buf, &len);
    int st = m ? 0 : -2;
    for (ssize_t k; !st && (k = getline(&line, &cap, fp)) > 0 && line[0] == '#';)
        fwrite(line, 1, (size_t)k, m);
    free(line);
    fclose(fp);
    if (m && fclose(m) == 0)
        st = stamp_in(buf, len, hex);
    else
        st = -2;
    free(buf);
    return st;
}

/* What a file's stamp is, for a message. */
static void describe(char *buf, size_t len, const char *q, int st, const char *hex)
{
    if (st == 1)
        snprintf(buf, len, "%s has set %s", q, hex);
    else if (st == 0)
        snprintf(buf, len, "%s has no '# set:' line", q);
    else
        snprintf(buf, len, "%s has a damaged '# set:' line", q);
}

int cli_set_check(const char *cmd, const char *what, const char *path, const char *text,
                  size_t len)
{
    static const char *const suffix[3] = {".summary.csv", ".runs.csv", ".csv"};
    const size_t n = strlen(path);
    size_t role = 2, cut = n; /* rows unless the name says summary or runs */
    for (size_t k = 0; k < 3; k++) {
        const size_t sl = strlen(suffix[k]);
        if (n > sl && !strcmp(path + n - sl, suffix[k])) {
            role = k, cut = n - sl;
            break;
        }
    }
    char *name = strndup(path, cut); /* NAME */
    char *member[3] = {name ? cli_alloc_printf("%s.summary.csv", name) : NULL,
                       name ? cli_alloc_printf("%s.runs.csv", name) : NULL,
                       name ? cli_alloc_printf("%s.csv", name) : NULL};
    char *commit = name ? cli_alloc_printf("%s.commit", name) : NULL;
    int rc = name && member[0] && member[1] && member[2] && commit
                 ? 0 : cli_sys_error(cmd, "out of memory");
    char mine[17] = "", theirs[17] = "";
    const int st = rc ? 0 : stamp_in(text, len, mine);
    for (size_t k = 0; k < 3 && !rc; k++) {
        const char *other = member[k];
        struct stat sb;
        if (k == role)
            continue;
        bool bare = false; /* a rows file named without .csv (-o NAME), when it has a stamp */
        if (k == 2 && stat(other, &sb) != 0 && stat(name, &sb) == 0 && S_ISREG(sb.st_mode))
            other = name, bare = true;
        const int ot = stamp_of_file(other, theirs);
        if (ot == -2 || (bare && ot != 1) || (ot == st && (st != 1 || !strcmp(mine, theirs))))
            continue;
        char qa[CLI_QUOTE_LEN], qb[CLI_QUOTE_LEN], qc[CLI_QUOTE_LEN], a[400], b[400];
        cli_quote(qa, sizeof qa, path, n, 200);
        cli_quote(qb, sizeof qb, other, strlen(other), 200);
        cli_quote(qc, sizeof qc, commit, strlen(commit), 200);
        describe(a, sizeof a, qa, st, mine);
        describe(b, sizeof b, qb, ot, theirs);
        if (access(commit, F_OK) == 0)
            rc = cli_error(cmd, "%s: %s and %s are not one set (%s, %s): a commit into it was "
                           "interrupted (%s is there); the next srlab sweep or merge that writes "
                           "it completes the commit", what, qa, qb, a, b, qc);
        else
            rc = cli_error(cmd, "%s: %s and %s are not one set (%s, %s): they were written by "
                           "different commands; write the set again (srlab sweep or merge)",
                           what, qa, qb, a, b);
    }
    if (!rc && st < 0) {
        char qa[CLI_QUOTE_LEN];
        rc = cli_error(cmd, "%s: %s has a damaged '# set:' line", what,
                       cli_quote(qa, sizeof qa, path, n, 200));
    }
    for (size_t k = 0; k < 3; k++)
        free(member[k]);
    free(commit);
    free(name);
    return rc;
}
