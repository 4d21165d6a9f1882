/* bench/levels_driver.c: srlab's bulk rounding at each instruction-set level, in one process.
 *
 * Built by bench/levels.sh against a build of srlab; never part of srlab's build. The bulk
 * kernels exist once per level (src/core/isa.h: baseline x86-64, x86-64-v3, x86-64-v4, and
 * x86-64-v4 with AVX-512 IFMA); srl__round_bulk_isa() (private, src/round/round_bulk.h) forces
 * one. For every case each level this CPU has runs in turn within each repeat, then memcpy of
 * the input's bytes (binary64 for binary64 -> binary32; each thread copying its share) and the
 * same copy with streaming stores (timing.h; issue 33 item 6 measures the deterministic cases
 * against it), so that a change in the machine's load hits all alike; the rate is
 * n / median time, the time being the process's CPU time on one thread and wall-clock time on
 * more, and a ratio the median over the repeats of the two contenders' ratio in the repeat
 * (timing.h's paired_ratio). Every level's output is compared byte for byte with the baseline's
 * ("same").
 * --against LIB: another build's libsrlab (an older commit, say), loaded with dlopen into the
 * same process (RTLD_DEEPBIND, so that its own calls stay inside it) and run at its own choice
 * of level after the levels of this build, in every repeat: the table gains its rate and this
 * build's top level over it, and its output too must be the baseline's bytes. The two builds
 * must share the public API's types (srl_format, srl_rounding, srl_rng).
 * Arrays beyond the caches (input or output of at least EVICT_MIN_BYTES, timing.h) are evicted
 * from the caches before each contender, untimed: every one starts from memory (without it,
 * the streaming copy, which ran right after memcpy, found memcpy's last lines of the input still
 * in the caches).
 * --only TEXT: only the cases whose name (the table's first column) contains TEXT.
 * Usage: levels_driver [--n N] [--reps R] [--dist normal|uniform] [--against LIB] [--only TEXT] */
#define _GNU_SOURCE /* RTLD_DEEPBIND */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "round/round_bulk.h" /* srl__round_bulk_isa */
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "timing.h"

enum { B64, B32, D2F };
typedef struct {
    const char *fmt, *mode;
    int path;
    srl_rng_kind kind;
} level_case;

static const char *const path_names[] = {"binary64", "binary32", "binary64 -> binary32"};
static const char *const level_names[] = {"base", "v3", "v4", "v4i"};

/* A build's entry points: this build's (linked) or the --against build's (dlopened). */
typedef struct round_lib {
    int (*round_array)(double *, const double *, size_t, const srl_format *, srl_rounding,
                       srl_rng *);
    int (*round_float)(float *, const float *, size_t, const srl_format *, srl_rounding,
                       srl_rng *);
    int (*round_d2f)(float *, const double *, size_t, const srl_format *, srl_rounding,
                     srl_rng *);
    void (*rng_init)(srl_rng *, srl_rng_kind, uint64_t, uint64_t);
} round_lib;

static int load_other(round_lib *o, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "levels_driver: --against '%s': %s\n", path, dlerror());
        return -1;
    }
    /* (POSIX: a function pointer converts from dlsym's void *) */
    *(void **)&o->round_array = dlsym(h, "srl_round_array");
    *(void **)&o->round_float = dlsym(h, "srl_round_array_float");
    *(void **)&o->round_d2f = dlsym(h, "srl_round_array_d2f");
    *(void **)&o->rng_init = dlsym(h, "srl_rng_init");
    if (!o->round_array || !o->round_float || !o->round_d2f || !o->rng_init) {
        fprintf(stderr, "levels_driver: --against '%s': not a libsrlab\n", path);
        return -1;
    }
    return 0;
}

static long parse_long(const char *opt, const char *s, long lo)
{
    char *end;
    const long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > 1000000000L) {
        fprintf(stderr, "levels_driver: %s '%s': not an integer >= %ld\n", opt, s, lo);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    size_t n = 10000000;
    int reps = 9, uniform = 0;
    const char *against = NULL, *only = NULL;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "levels_driver: '%s' needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--n"))
            n = (size_t)parse_long("--n", argv[i + 1], 1);
        else if (!strcmp(argv[i], "--reps"))
            reps = (int)parse_long("--reps", argv[i + 1], 1);
        else if (!strcmp(argv[i], "--dist") && !strcmp(argv[i + 1], "normal"))
            uniform = 0;
        else if (!strcmp(argv[i], "--dist") && !strcmp(argv[i + 1], "uniform"))
            uniform = 1;
        else if (!strcmp(argv[i], "--against"))
            against = argv[i + 1];
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else {
            fprintf(stderr, "levels_driver: unknown argument '%s %s'\n", argv[i], argv[i + 1]);
            return 2;
        }
    }
    if (reps > 99)
        reps = 99;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const int wall = threads > 1;
    const int top = srl__round_bulk_isa(-1);
    const round_lib self = {srl_round_array, srl_round_array_float, srl_round_array_d2f,
                            srl_rng_init};
    round_lib other = {0};
    if (against && load_other(&other, against) != 0)
        return 1;
    const int ot = against ? top + 1 : -1; /* the other build's column (before memcpy's) */
    const int mc = top + 1 + (against != NULL); /* memcpy's */
    const int sc = mc + 1;                      /* the streaming copy's */
    double *xd = malloc(n * sizeof *xd), *yd = malloc(n * sizeof *yd), *rd = malloc(n * sizeof *rd);
    float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf), *rf = malloc(n * sizeof *rf);
    if (!xd || !yd || !rd || !xf || !yf || !rf) {
        fprintf(stderr, "levels_driver: out of memory for n = %zu\n", n);
        return 1;
    }
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG32, 20261202, 0);
    for (size_t i = 0; i < n; i++) {
        xd[i] = uniform ? 2 * srl_rng_uniform(&g) - 1 : srl_rng_normal(&g);
        xf[i] = (float)xd[i];
    }
    /* the deterministic cases of bench/peers.sh too (rz, fp16, the fp8 formats' rn), so that
     * every level's bytes are compared there as well */
    static const level_case cases[] = {
        {"bf16", "rn", B64, SRL_RNG_PCG32},   {"bf16", "rz", B64, SRL_RNG_PCG32},
        {"fp16", "rn", B64, SRL_RNG_PCG32},   {"e4m3", "rn", B64, SRL_RNG_PCG32},
        {"e5m2", "rn", B64, SRL_RNG_PCG32},   {"bf16", "sr", B64, SRL_RNG_PCG32},
        {"bf16", "sr", B64, SRL_RNG_PCG64},   {"e4m3", "sr", B64, SRL_RNG_PCG32},
        {"e4m3", "sr", B64, SRL_RNG_PCG64},   {"bf16", "rn", B32, SRL_RNG_PCG32},
        {"bf16", "rz", B32, SRL_RNG_PCG32},   {"e4m3", "rn", B32, SRL_RNG_PCG32},
        {"e5m2", "rn", B32, SRL_RNG_PCG32},   {"bf16", "sr", B32, SRL_RNG_PCG32},
        {"bf16", "sr", B32, SRL_RNG_PCG64},   {"e4m3", "sr", B32, SRL_RNG_PCG32},
        {"e4m3", "sr", B32, SRL_RNG_PCG64},
        /* rz of the other formats: fp8's normal ranges start at 2^-6 (e4m3) and 2^-14 */
        {"fp16", "rz", B64, SRL_RNG_PCG32},   {"e4m3", "rz", B64, SRL_RNG_PCG32},
        {"e5m2", "rz", B64, SRL_RNG_PCG32},   {"fp16", "rz", B32, SRL_RNG_PCG32},
        {"e4m3", "rz", B32, SRL_RNG_PCG32},   {"e5m2", "rz", B32, SRL_RNG_PCG32},
        {"bf16", "rn", D2F, SRL_RNG_PCG32},   {"bf16", "sr", D2F, SRL_RNG_PCG32},
        {"bf16", "sr", D2F, SRL_RNG_PCG64},   {"e4m3", "sr", D2F, SRL_RNG_PCG32},
        {"e4m3", "sr", D2F, SRL_RNG_PCG64},
    };
    printf("# %zu %s values, %d thread(s), %d repeats alternating the levels and memcpy, "
           "medians of %s time, ratios paired by repeat; this CPU's level: %s\n",
           n, uniform ? "uniform [-1,1]" : "standard-normal", threads, reps,
           wall ? "wall-clock" : "CPU", level_names[top]);
    if (against)
        printf("# against: %s (run at its own level after this build's levels)\n", against);
    printf("| case |");
    for (int l = 0; l <= top; l++)
        printf(" %s M/s |", level_names[l]);
    if (against)
        printf(" against M/s |");
    printf(" memcpy M/s | stream M/s |");
    for (int l = 0; l <= top; l++)
        printf(" %s / memcpy |", level_names[l]);
    for (int l = 0; l <= top; l++)
        printf(" %s / stream |", level_names[l]);
    if (against)
        printf(" against / memcpy | %s / against |", level_names[top]);
    printf(" same |\n|---|");
    for (int l = 0; l < 3 * (top + 1) + 3 + 3 * (against != NULL); l++)
        printf("---|");
    printf("\n");
    int status = 0, shown = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const level_case *k = &cases[c];
        char name[96];
        snprintf(name, sizeof name, "%s %s, %s%s", k->fmt, k->mode, path_names[k->path],
                 k->mode[0] == 's' ? (k->kind == SRL_RNG_PCG64 ? " (pcg64)" : " (pcg32)") : "");
        if (only && !strstr(name, only))
            continue;
        shown++;
        /* the case's arrays, and whether they are beyond the caches */
        const void *in = k->path == B32 ? (const void *)xf : (const void *)xd;
        const void *out = k->path == B64 ? (const void *)yd : (const void *)yf;
        const size_t in_bytes = n * (k->path == B32 ? sizeof *xf : sizeof *xd),
                     out_bytes = n * (k->path == B64 ? sizeof *yd : sizeof *yf);
        const int evict = in_bytes >= EVICT_MIN_BYTES || out_bytes >= EVICT_MIN_BYTES;
        srl_format f;
        srl_rounding m;
        srl_err err;
        if (srl_format_parse(&f, k->fmt, &err) != SRL_OK ||
            srl_rounding_parse(&m, k->mode, &err) != SRL_OK) {
            fprintf(stderr, "levels_driver: %s\n", err.msg);
            return 1;
        }
        double t[7][99];
        int same = 1;
        for (int r = 0; r < reps; r++)
            for (int l = 0; l <= sc; l++) {
                const round_lib *lib = l == ot ? &other : &self;
                if (l <= top)
                    srl__round_bulk_isa(l); /* this build at level l */
                srl_rng s;
                lib->rng_init(&s, k->kind, 7, 0);
                if (evict) {
                    evict_bytes(in, in_bytes);
                    if (l >= mc) /* (the copies write the input's type: yd but for binary32) */
                        evict_bytes(k->path == B32 ? (void *)yf : (void *)yd, in_bytes);
                    else
                        evict_bytes(out, out_bytes);
                }
                const double t0 = now(!wall);
                int st = SRL_OK;
                if (l >= mc) {
                    void (*copy)(void *, const void *, size_t) =
                        l == mc ? copy_bytes : stream_copy_bytes;
                    if (k->path == B32)
                        copy(yf, xf, n * sizeof *xf);
                    else
                        copy(yd, xd, n * sizeof *xd);
                } else if (k->path == B64) {
                    st = lib->round_array(yd, xd, n, &f, m, &s);
                } else if (k->path == B32) {
                    st = lib->round_float(yf, xf, n, &f, m, &s);
                } else {
                    st = lib->round_d2f(yf, xd, n, &f, m, &s);
                }
                t[l][r] = now(!wall) - t0;
                if (st != SRL_OK) {
                    fprintf(stderr, "levels_driver: rounding failed (%d)\n", st);
                    return 1;
                }
                if (l >= mc)
                    continue;
                if (r == 0) { /* every level's output against the baseline's */
                    const void *out = k->path == B64 ? (const void *)yd : (const void *)yf;
                    void *keep = k->path == B64 ? (void *)rd : (void *)rf;
                    const size_t bytes = n * (k->path == B64 ? sizeof *yd : sizeof *yf);
                    if (l == 0)
                        memcpy(keep, out, bytes);
                    else if (memcmp(keep, out, bytes))
                        same = 0;
                }
            }
        srl__round_bulk_isa(-1);
        double q[99]; /* (paired_ratio's room; the rates' medians sort a copy, t stays paired) */
        printf("| %s |", name);
        for (int l = 0; l <= sc; l++)
            printf(" %.0f |", (double)n / median(memcpy(q, t[l], (size_t)reps * sizeof *q), reps) /
                                  1e6);
        for (int l = 0; l <= top; l++)
            printf(" %.2f |", paired_ratio(q, t[mc], t[l], reps));
        for (int l = 0; l <= top; l++)
            printf(" %.2f |", paired_ratio(q, t[sc], t[l], reps));
        if (against)
            printf(" %.2f | %.2f |", paired_ratio(q, t[mc], t[ot], reps),
                   paired_ratio(q, t[ot], t[top], reps));
        printf(" %s |\n", same ? "yes" : "NO");
        fflush(stdout);
        if (!same)
            status = 1;
    }
    free(xd), free(yd), free(rd), free(xf), free(yf), free(rf);
    if (!shown) {
        fprintf(stderr, "levels_driver: --only '%s': no case's name contains it\n", only);
        return 2;
    }
    return status;
}
