/* src/cli/reproduce/reproduce.h: what `srlab reproduce` is made of, and the helpers every part
 * of it shares (reproduce.c).
 *
 * A reproduction is a list of steps, each one run of this srlab binary in the report folder:
 * per experiment (experiments/NAME.ini) a sweep and one plot per figure its header names, then
 * srlab check. Paths inside the plan are relative to the report folder, so the commands can be
 * pasted in that folder and every link of the report is relative. The parts, each using only
 * this header (and cmd_reproduce.c using them all):
 *   reproduce_plan.c    which experiments, figures and checks: the steps, from the specs
 *   reproduce_steps.c   the report folder made ready, and every step run in it
 *   reproduce_report.c  index.html, from the plan and what happened to each step */
#ifndef SRL_CLI_REPRODUCE_H
#define SRL_CLI_REPRODUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One run of srlab. */
typedef struct rp_step {
    char **argv;   /* argv[0] is the command ("sweep", "plot", "check"); NULL-terminated */
    int argc;
    char *log;     /* its standard output and error, "logs/NAME.log" */
    bool ran;
    int status;    /* exit status; 128 + N when killed by signal N; 127 when it could not start */
    double seconds;
    double cpu;    /* CPU time, user + system of every thread (measured, not stretched by load) */
    char *last;    /* the last line of its log, when it failed */
} rp_step;

/* A figure named by a spec's header ("# Figure: srlab plot NAME --in OUT.csv -o FILE.png"). */
typedef struct rp_figure {
    char *line;    /* the command as the spec writes it */
    char *plot;    /* the plot script's name (plots/NAME.gp) */
    char *file;    /* the figure file, in the report folder */
    char *problem; /* why it cannot be drawn (no script, a bad line...), or NULL */
    rp_step step;
} rp_figure;

typedef struct rp_experiment {
    char *name;        /* NAME of experiments/NAME.ini */
    char *source;      /* the spec file run, as found in experiments/ */
    char *spec;        /* its copy in the report folder, "specs/NAME.ini" */
    char *about;       /* the prose of its header comment */
    char *problem;     /* why it cannot run, or NULL */
    bool has_quick;    /* it has a [quick] section */
    bool resumed;      /* its sweep continued an interrupted sweep's journal */
    char *rows, *summary, *runs; /* "NAME.csv", "NAME.summary.csv", "NAME.runs.csv" */
    rp_step sweep;
    rp_step plan;      /* quick mode: `srlab sweep SPEC --dry-run`, the full mode's size */
    double full_cpu;   /* the full sweep's CPU seconds as measured, from its spec's header line
                        * "# Full mode: N CPU-s ...", or NAN when it has none */
    rp_figure *figs;
    size_t nfigs;
} rp_experiment;

typedef struct rp_report {
    const char *dir;          /* the report folder, as given */
    bool quick;
    char *exe;                /* the srlab binary the steps run */
    const char *experiments;  /* where the specs were found */
    const char *plots;        /* where srlab plot finds its scripts */
    rp_experiment *ex;
    size_t nex;
    bool check_skipped;
    rp_step check;
    char date[32];            /* UTC, ISO 8601 */
    double seconds;           /* wall time of the whole reproduction */
    double cpu;               /* CPU time of all its steps */
    int argc;                 /* reproduce's own command line */
    char **argv;
} rp_report;

/* The times srlab reproduce states, in its help, its report and docs/report.md: CPU time (user
 * + system over all threads, which other work on the machine does not stretch), measured with
 * srlab 0.1.0 on a 2-core VM; the wall time on C free cores is about the CPU time divided by C.
 * The full mode's time is the sum of what each spec's "# Full mode:" line records and of
 * RP_CHECK_FULL_CPU, srlab check's; tests/cli/times.sh checks that they agree. */
#define RP_QUICK_TIME "about 1 CPU-minute (about 30 s on 2 free cores)"
#define RP_FULL_TIME "about 74 CPU-minutes (about 37 min on 2 free cores)"
#define RP_QUICK_CPU 59.8       /* the quick mode's CPU seconds, measured */
#define RP_CHECK_FULL_CPU 107.0 /* srlab check's CPU seconds in the full mode, measured */

/* ---- helpers (reproduce.c) ---- */

/* The step ran and exited 0. */
bool rp_step_ok(const rp_step *s);
/* Append an argument to the step's argv; 0, or -1 when out of memory. */
int rp_step_push(rp_step *s, const char *arg);
void rp_step_free(rp_step *s);
/* A command line as a user types it, argv[0] being srlab's command ("srlab sweep specs/x.ini
 * --quick -o x.csv"; arguments quoted for a POSIX shell where needed), malloc'd; NULL when out
 * of memory. */
char *rp_command(int argc, char **argv);
/* A wall time for people: "3.2 s", "4 min 05 s", "2 h 07 min". */
void rp_duration(char *buf, size_t len, double seconds);

#endif
