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
 * peers.sh takes the medians. Other lines a peer prints are ignored.
 *
 * With GPT_ALTERNATE="1 2" (thread counts) in the environment, one process takes its steps in
 * blocks of GPT_BLOCK on each count in turn (omp_set_num_threads between steps; block 0 on the
 * first count), and prints only the steps after a block's first (its warm-up: the first step
 * on a new count finds its data in the other cores' caches) as
 *     step T CPU_MS WALL_MS THREADS
 * so that both counts see the same machine: on a shared VM the speed of a process can change by
 * 20% from one to the next, more than the differences to be measured. */
#ifndef BENCH_GPT_STEPS_H
#define BENCH_GPT_STEPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct gpt_size {
    long layers, width, heads, context, batch, vocab, steps;
    const char *extra; /* the value of the driver's own option (--ckpt or --strategy) */
    const char *data;  /* --data FILE: a token file as llm.c writes them (NULL: none) */
} gpt_size;

enum { GPT_BLOCK = 3, GPT_MAX_COUNTS = 8 };

typedef struct step_clock {
    double cpu, wall; /* seconds, at the end of the previous step */
    int counts[GPT_MAX_COUNTS], ncounts; /* GPT_ALTERNATE's thread counts (0: not alternating) */
} step_clock;

static double clock_seconds(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The thread count of step t (1, 2, ...) when alternating. */
static int step_clock_count(const step_clock *k, long t)
{
    return k->counts[((t - 1) / GPT_BLOCK) % k->ncounts];
}

/* Read GPT_ALTERNATE (a bad list exits 2 naming it), set the first count, start the clock. */
static void step_clock_start(step_clock *k)
{
    k->ncounts = 0;
    const char *alt = getenv("GPT_ALTERNATE");
    if (alt && *alt) {
#ifndef _OPENMP
        fprintf(stderr, "GPT_ALTERNATE: this driver was built without OpenMP\n");
        exit(2);
#endif
        char *end;
        for (const char *p = alt; *p;) {
            const long v = strtol(p, &end, 10);
            if (end == p || v < 1 || v > 4096 || k->ncounts == GPT_MAX_COUNTS ||
                (*end && *end != ' ')) {
                fprintf(stderr, "GPT_ALTERNATE: '%s' is not a list of up to %d thread counts\n",
                        alt, GPT_MAX_COUNTS);
                exit(2);
            }
            k->counts[k->ncounts++] = (int)v;
            p = end;
            while (*p == ' ')
                p++;
        }
#ifdef _OPENMP
        omp_set_num_threads(step_clock_count(k, 1));
#endif
    }
    k->cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    k->wall = clock_seconds(CLOCK_MONOTONIC);
}

/* Step t has just ended: print it unless it is a warm-up (step 1; when alternating, the first
 * step of every block), set the next step's thread count, and restart the clock. */
static void step_clock_lap(step_clock *k, long t)
{
    const double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    const double wall = clock_seconds(CLOCK_MONOTONIC);
    if (k->ncounts) {
        if ((t - 1) % GPT_BLOCK)
            printf("step %ld %.3f %.3f %d\n", t, 1e3 * (cpu - k->cpu), 1e3 * (wall - k->wall),
                   step_clock_count(k, t));
#ifdef _OPENMP
        omp_set_num_threads(step_clock_count(k, t + 1));
#endif
    } else if (t > 1)
        printf("step %ld %.3f %.3f\n", t, 1e3 * (cpu - k->cpu), 1e3 * (wall - k->wall));
    fflush(stdout);
    k->cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    k->wall = clock_seconds(CLOCK_MONOTONIC);
}

/* Parse --layers --width --heads --context --batch --vocab --steps, the driver's own option
 * `extra_opt` and the optional --data FILE; a missing or bad value exits 2 naming the option. */
static gpt_size gpt_size_parse(int argc, char **argv, const char *extra_opt)
{
    static const char *const names[] = {"--layers", "--width", "--heads", "--context",
                                        "--batch",  "--vocab", "--steps"};
    gpt_size s = {0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    long *vals[] = {&s.layers, &s.width, &s.heads, &s.context, &s.batch, &s.vocab, &s.steps};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: '%s' needs a value\n", argv[0], argv[i]);
            exit(2);
        }
        if (!strcmp(argv[i], extra_opt) || !strcmp(argv[i], "--data")) {
            *(!strcmp(argv[i], "--data") ? &s.data : &s.extra) = argv[i + 1];
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
