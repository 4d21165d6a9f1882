/* tests/cli/io_shim.c: an LD_PRELOAD library that makes srlab's own system calls fail, or kills
 * srlab at one of them, for the tests of checked writes and of set transactions (issue 28, items
 * 2 and 3). It stands in for what a small tmpfs cannot do: an fsync, a close or a rename that
 * fails, and a kill at each instant of a commit rather than at a random one.
 *
 *   SRL_SHIM_KILL=N         SIGKILL at the N-th call (from 1) of rename, unlink, fsync,
 *                           fdatasync or ftruncate, before it is made: N = 1, 2, ... visits every
 *                           state a commit passes through
 *   SRL_SHIM_FAIL=CALL:N:E  the N-th call of CALL (write, fsync, fdatasync, close, rename,
 *                           ftruncate, unlink) fails with errno E (a number), doing nothing;
 *                           write counts standard output and files (not standard error: the
 *                           messages), close only files (descriptors above 2)
 *   SRL_SHIM_COUNT=FILE     at exit, "CALL COUNT" lines of the calls made, into FILE
 * Only the calls srlab makes itself pass through here (libc's internal ones do not). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

enum { C_WRITE, C_FSYNC, C_FDATASYNC, C_CLOSE, C_RENAME, C_FTRUNCATE, C_UNLINK, C_N };
static const char *const names[C_N] = {"write", "fsync", "fdatasync", "close",
                                       "rename", "ftruncate", "unlink"};
static unsigned long counts[C_N], commit_steps;

/* Kill before a step of a commit (SRL_SHIM_KILL); fail a call (SRL_SHIM_FAIL): true when the call
 * must fail (errno set). */
static int intercept(int call)
{
    unsigned long n = ++counts[call];
    if (call == C_RENAME || call == C_UNLINK || call == C_FSYNC || call == C_FDATASYNC ||
        call == C_FTRUNCATE) {
        const char *k = getenv("SRL_SHIM_KILL");
        if (k && strtoul(k, NULL, 10) == ++commit_steps)
            raise(SIGKILL);
    }
    const char *f = getenv("SRL_SHIM_FAIL");
    if (!f)
        return 0;
    size_t l = strlen(names[call]);
    if (strncmp(f, names[call], l) || f[l] != ':')
        return 0;
    char *end;
    unsigned long at = strtoul(f + l + 1, &end, 10);
    if (at != n || *end != ':')
        return 0;
    errno = (int)strtol(end + 1, NULL, 10);
    return 1;
}

#define REAL(ret, name, ...) \
    static ret (*real)(__VA_ARGS__); \
    if (!real) \
        real = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(ssize_t, "write", int, const void *, size_t);
    if (fd != 2 && intercept(C_WRITE))
        return -1;
    return real(fd, buf, n);
}

int fsync(int fd)
{
    REAL(int, "fsync", int);
    return intercept(C_FSYNC) ? -1 : real(fd);
}

int fdatasync(int fd)
{
    REAL(int, "fdatasync", int);
    return intercept(C_FDATASYNC) ? -1 : real(fd);
}

int close(int fd)
{
    REAL(int, "close", int);
    if (fd > 2 && intercept(C_CLOSE)) {
        real(fd); /* the descriptor is gone either way, as Linux does it */
        errno = errno ? errno : EIO;
        return -1;
    }
    return real(fd);
}

int rename(const char *a, const char *b)
{
    REAL(int, "rename", const char *, const char *);
    return intercept(C_RENAME) ? -1 : real(a, b);
}

int ftruncate(int fd, off_t len)
{
    REAL(int, "ftruncate", int, off_t);
    return intercept(C_FTRUNCATE) ? -1 : real(fd, len);
}

int unlink(const char *p)
{
    REAL(int, "unlink", const char *);
    return intercept(C_UNLINK) ? -1 : real(p);
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("SRL_SHIM_COUNT");
    if (!path)
        return;
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    for (int k = 0; k < C_N; k++)
        fprintf(fp, "%s %lu\n", names[k], counts[k]);
    fprintf(fp, "commit-steps %lu\n", commit_steps);
    fclose(fp);
}
