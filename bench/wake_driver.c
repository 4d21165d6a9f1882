/* bench/wake_driver.c: where the kernel runs an OpenMP worker it wakes (bench/benchmarks.sh's
 * scheduling probe); never part of srlab's build.
 *
 * R times: sleep 0.2 s (so that the worker has gone to sleep, as it has before a benchmark's
 * call), then one parallel region of two threads in which each notes its CPU (sched_getcpu) and
 * spins for S seconds of wall time. Prints how many regions started both threads on one CPU,
 * and the regions' median wall time against S: near S when the threads ran side by side, near
 * 2 S or more when they took turns on one CPU. Run it with OMP_WAIT_POLICY=passive (a worker
 * that spins is never woken) under the scheduling being probed.
 * Usage: wake_driver [R [S]] (default 20 regions of 1 ms) */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "timing.h"

static double spin(double s)
{
    const double t0 = now(0);
    double x = 1;
    while (now(0) - t0 < s)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 20;
    const double s = argc > 2 ? atof(argv[2]) : 1e-3;
    if (reps < 1 || reps > MAXR || !(s > 0 && s < 1)) {
        fprintf(stderr, "wake_driver: usage: wake_driver [R (1..%d) [S (seconds, < 1)]]\n", MAXR);
        return 2;
    }
    omp_set_num_threads(2);
    double w[MAXR], sink = 0;
    int same = 0, teams = 0;
    for (int r = 0; r < reps; r++) {
        const struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
        int cpu[2] = {-1, -2}, nt = 0;
        const double w0 = now(0);
#pragma omp parallel reduction(+ : sink)
        {
            const int t = omp_get_thread_num();
            if (t < 2)
                cpu[t] = sched_getcpu();
            if (t == 0)
                nt = omp_get_num_threads();
            sink += spin(s);
        }
        w[r] = now(0) - w0;
        same += nt == 2 && cpu[0] == cpu[1];
        teams += nt == 2;
    }
    printf("%d of %d two-thread regions started both threads on one CPU; median wall time %.2f ms "
           "for %.2f ms of work per thread%s\n", same, teams, 1e3 * median(w, reps), 1e3 * s,
           sink < 0 ? " " : "");
    return teams == reps ? 0 : 1;
}
