/* tests/cli/kill_after.c: `kill_after US PROGRAM ARG...` runs PROGRAM in a process group of its
 * own and sends SIGKILL to the whole group US microseconds after starting it (so the children
 * srlab reproduce runs die with it, as in a power cut). Prints "killed" when the kill came first,
 * else "exit N"; exits 0, or 2 on bad arguments, 3 when PROGRAM cannot be started. For the tests
 * of set transactions (tests/sweep/sets.sh): a shell's sleep is too coarse for kills inside a
 * command of a few milliseconds. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char *end;
    long us = argc > 2 ? strtol(argv[1], &end, 10) : -1;
    if (argc < 3 || *end || us < 0) {
        fprintf(stderr, "usage: kill_after MICROSECONDS PROGRAM [ARG]...\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0)
        return 3;
    if (pid == 0) {
        setpgid(0, 0);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    setpgid(pid, pid); /* whichever of the two runs first */
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return 3;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
        printf("killed\n");
    else
        printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}
