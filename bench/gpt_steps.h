/* bench/gpt_steps.h: what bench/llmc_driver.c and bench/srlab_gpt_driver.c share (issue 16): the
 * model sizes from the command line, the two clocks, and the line each timed step prints.
 *
 * Both drivers are compiled by bench/peers.sh outside srlab's build. Each run is one process that
 * takes --steps optimizer steps of a GPT of the given size; step 1 (which allocates the
 * activations and the optimizer state in both programs) is the warm-up, and every later step
 * prints one line
 *     step T CPU_MS WALL_MS
 * with the process's CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread's time, so on two threads
 * it is the work both cores did) and the wall-clock time (CLOCK_MONOTONIC) of that step alone.
 * peers.sh takes the medians. Other lines a peer prints are ignored. */
#ifndef BENCH_GPT_STEPS_H
#define BENCH_GPT_STEPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct gpt_size {
    long layers, width, heads, context, batch, vocab, steps;
    const char *extra; /* the value of the driver's own option (--ckpt or --strategy) */
} gpt_size;

typedef struct step_clock {
    double cpu, wall; /* seconds, at the end of the previous step */
} step_clock;

static double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void step_clock_start(step_clock *k)
{
    k->cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    k->wall = clock_seconds(CLOCK_MONOTONIC);
}

/* Step t has just ended: print it unless it is the warm-up, and restart the clock. */
static void step_clock_lap(step_clock *k, long t)
{
    const double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double wall = clock_seconds(CLOCK_MONOTONIC);
    if (t > 1)
        printf("step %ld %.3f %.3f\n", t, 1e3 * (cpu - k->cpu), 1e3 * (wall - k->wall));
    fflush(stdout);
    k->cpu = cpu;
    k->wall = wall;
}

/* Parse --layers --width --heads --context --batch --vocab --steps and the driver's own option
 * `extra_opt`; a missing or bad value exits 2 naming the option. */
static gpt_size gpt_size_parse(int argc, char **argv, const char *extra_opt)
{
    static const char *const names[] = {"--layers", "--width", "--heads", "--context",
                                        "--batch",  "--vocab", "--steps"};
    gpt_size s = {0, 0, 0, 0, 0, 0, 0, NULL};
    long *vals[] = {&s.layers, &s.width, &s.heads, &s.context, &s.batch, &s.vocab, &s.steps};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: '%s' needs a value\n", argv[0], argv[i]);
            exit(2);
        }
        if (!strcmp(argv[i], extra_opt)) {
            s.extra = argv[i + 1];
            continue;
        }
        size_t k = 0;
        while (k < sizeof names / sizeof *names && strcmp(argv[i], names[k]))
            k++;
        char *end;
        const long v = k < sizeof names / sizeof *names ? strtol(argv[i + 1], &end, 10) : 0;
        if (k == sizeof names / sizeof *names || *end || v < 1 || v > 1000000) {
            fprintf(stderr, "%s: bad argument '%s %s'\n", argv[0], argv[i], argv[i + 1]);
            exit(2);
        }
        *vals[k] = v;
    }
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (!*vals[k]) {
            fprintf(stderr, "%s: %s is required\n", argv[0], names[k]);
            exit(2);
        }
    if (!s.extra || s.width % s.heads || s.steps < 2) {
        fprintf(stderr, "%s: needs %s, --heads dividing --width, and --steps >= 2\n", argv[0],
                extra_opt);
        exit(2);
    }
    return s;
}

#endif
