/* src/cli/progress.c: the progress line of a long command on a terminal (src/cli/progress.h). */
#include <stdio.h>
#include <unistd.h>

#include "cli/host.h"
#include "cli/progress.h"

void cli_duration(char *buf, size_t len, double s)
{
    if (!(s >= 0) || s > 1e8)
        s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

double cli_progress_elapsed(const cli_progress *p)
{
    return cli_host_now() - p->t0;
}

static void draw(cli_progress *p, uint64_t done, double t)
{
    char el[32], left[32];
    p->last = t;
    cli_duration(el, sizeof el, t - p->t0);
    const uint64_t todo = p->total - p->already;
    if (done)
        cli_duration(left, sizeof left, (t - p->t0) / (double)done * (double)(todo - done));
    fprintf(stderr, "\rsrlab %s: %llu/%llu %s, %s elapsed, %s%s left   ", p->what,
            (unsigned long long)(p->already + done), (unsigned long long)p->total, p->unit, el,
            done ? "about " : "", done ? left : "?");
    fflush(stderr);
}

void cli_progress_start(cli_progress *p, const char *what, const char *unit, uint64_t total,
                        uint64_t already, bool quiet)
{
    *p = (cli_progress){what, unit, total, already > total ? total : already, cli_host_now(), 0,
                        !quiet && isatty(2)};
    if (p->on)
        draw(p, 0, p->t0);
}

void cli_progress_show(cli_progress *p, uint64_t done)
{
    if (!p->on)
        return;
    const double t = cli_host_now();
    if (t - p->last >= 0.25)
        draw(p, done > p->total - p->already ? p->total - p->already : done, t);
}

void cli_progress_clear(const cli_progress *p)
{
    if (p->on) {
        fprintf(stderr, "\r%78s\r", "");
        fflush(stderr);
    }
}
