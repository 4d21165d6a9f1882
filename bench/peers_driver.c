/* bench/peers_driver.c: srlab's bulk rounding beside CPFloat's, in one process (issue 16).
 *
 * Built by bench/peers.sh against a CPFloat checkout the user names (its header-only interface,
 * with pcg-c when given); never part of srlab's build. For every case the three contenders run
 * in turn within each repeat (CPFloat, srlab, memcpy of the same bytes, and the same copy with
 * streaming stores), so that a change in the machine's load hits all four alike. The streaming
 * copy is about the fastest any elementwise kernel can move these bytes when they do not fit in
 * the caches (10^7 values): "ceiling" is then its rate over CPFloat's, the most any rounding
 * kernel could gain on CPFloat here (a factor-2 goal is out of reach wherever it is below 2).
 * For arrays in the caches, ordinary stores win and the column means nothing. Arrays beyond
 * the caches (EVICT_MIN_BYTES, timing.h) are evicted from the caches before each contender,
 * untimed, so that every one starts from memory: without it the streaming copy, which runs
 * right after memcpy, found memcpy's last lines of the input still in the caches, and srlab
 * after CPFloat the same, while each one that followed a contender with dirty output lines had
 * to write them back on its own time. Both outputs are evicted, not only the next contender's:
 * until 2026-12-07 srlab, which writes an array of its own, paid for writing back CPFloat's
 * (with this and the paired ratios below, srlab / streaming copy for binary32 on two threads
 * went from 0.77-0.95 to 0.87-1.03 in runs side by side).
 * A rate is n / median time, the time being the process's CPU time on one thread and
 * wall-clock time on more (CPU time would count both cores). A ratio is the median over the
 * repeats of the two contenders' ratio within the repeat: it pairs runs made moments apart (on
 * a shared VM the memory bandwidth left to us moved by a factor 2 between minutes). For
 * deterministic modes the outputs are compared byte for byte ("same" column).
 * Usage: peers_driver [--n N] [--reps R] [--threads T] [--dist normal|uniform] [--isa v3|v4]
 * (--isa: srlab's bulk kernels forced to that instruction-set level's copy, through the private
 * srl__round_bulk_isa of src/round/round_bulk.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpfloat_binary32.h"
#include "cpfloat_binary64.h"
#include "srlab/format.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "timing.h"

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    const char *name;
    const char *fmt; /* srlab format name */
    int p, emin, emax, inf;
    const char *mode; /* srlab mode */
    int cp_round;     /* CPFloat's rounding */
    int single;       /* 1: binary32 in/out */
    srl_rng_kind kind;
} bench_case;

static const bench_case cases[] = {
    {"bf16 rn, binary64", "bf16", 8, -126, 127, 1, "rn", CPFLOAT_RND_NE, 0, SRL_RNG_PCG32},
    {"bf16 rz, binary64", "bf16", 8, -126, 127, 1, "rz", CPFLOAT_RND_TZ, 0, SRL_RNG_PCG32},
    {"bf16 sr, binary64 (pcg32)", "bf16", 8, -126, 127, 1, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG32},
    {"bf16 sr, binary64 (pcg64)", "bf16", 8, -126, 127, 1, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG64},
    {"fp16 rn, binary64", "fp16", 11, -14, 15, 1, "rn", CPFLOAT_RND_NE, 0, SRL_RNG_PCG32},
    {"e4m3 rn, binary64", "e4m3", 4, -6, 8, 0, "rn", CPFLOAT_RND_NE, 0, SRL_RNG_PCG32},
    {"e5m2 rn, binary64", "e5m2", 3, -14, 15, 1, "rn", CPFLOAT_RND_NE, 0, SRL_RNG_PCG32},
    {"e4m3 sr, binary64 (pcg32)", "e4m3", 4, -6, 8, 0, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG32},
    {"e4m3 sr, binary64 (pcg64)", "e4m3", 4, -6, 8, 0, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG64},
    {"e5m2 sr, binary64 (pcg32)", "e5m2", 3, -14, 15, 1, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG32},
    {"e5m2 sr, binary64 (pcg64)", "e5m2", 3, -14, 15, 1, "sr", CPFLOAT_RND_SP, 0, SRL_RNG_PCG64},
    {"bf16 rn, binary32", "bf16", 8, -126, 127, 1, "rn", CPFLOAT_RND_NE, 1, SRL_RNG_PCG32},
    {"bf16 rz, binary32", "bf16", 8, -126, 127, 1, "rz", CPFLOAT_RND_TZ, 1, SRL_RNG_PCG32},
    {"bf16 sr, binary32 (pcg32)", "bf16", 8, -126, 127, 1, "sr", CPFLOAT_RND_SP, 1, SRL_RNG_PCG32},
    {"e4m3 rn, binary32", "e4m3", 4, -6, 8, 0, "rn", CPFLOAT_RND_NE, 1, SRL_RNG_PCG32},
    {"e5m2 rn, binary32", "e5m2", 3, -14, 15, 1, "rn", CPFLOAT_RND_NE, 1, SRL_RNG_PCG32},
    {"e4m3 sr, binary32 (pcg32)", "e4m3", 4, -6, 8, 0, "sr", CPFLOAT_RND_SP, 1, SRL_RNG_PCG32},
    {"e4m3 sr, binary32 (pcg64)", "e4m3", 4, -6, 8, 0, "sr", CPFLOAT_RND_SP, 1, SRL_RNG_PCG64},
    {"e5m2 sr, binary32 (pcg32)", "e5m2", 3, -14, 15, 1, "sr", CPFLOAT_RND_SP, 1, SRL_RNG_PCG32},
};

int srl__round_bulk_isa(int force); /* src/round/round_bulk.h (private) */

int main(int argc, char **argv)
{
    size_t n = 10000000;
    int reps = 15, threads = 1, uniform = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = (size_t)strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--dist"))
            uniform = !strcmp(argv[i + 1], "uniform");
        else if (!strcmp(argv[i], "--isa") &&
                 (!strcmp(argv[i + 1], "v3") || !strcmp(argv[i + 1], "v4"))) {
            const int want = argv[i + 1][1] == '3' ? 1 : 2;
            if (srl__round_bulk_isa(want) != want) {
                fprintf(stderr, "peers_driver: this CPU has no x86-64-%s\n", argv[i + 1]);
                return 2;
            }
        }
        else {
            fprintf(stderr, "peers_driver: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (n == 0 || reps < 1 || reps > 1000 || threads < 1) {
        fprintf(stderr, "peers_driver: need --n > 0, 1 <= --reps <= 1000, --threads >= 1\n");
        return 2;
    }
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    const int cpu = threads == 1;
    double *xd = malloc(n * sizeof *xd), *yc = malloc(n * sizeof *yc), *ys = malloc(n * sizeof *ys);
    float *xf = malloc(n * sizeof *xf);
    double *tc = malloc((size_t)reps * sizeof *tc), *tsr = malloc((size_t)reps * sizeof *tsr),
           *tm = malloc((size_t)reps * sizeof *tm), *tn = malloc((size_t)reps * sizeof *tn);
    double *q = malloc((size_t)reps * sizeof *q); /* (paired_ratio's room) */
    if (!xd || !yc || !ys || !xf || !tc || !tsr || !tm || !tn || !q) {
        fprintf(stderr, "peers_driver: out of memory\n");
        return 1;
    }
    srl_rng data;
    srl_rng_init(&data, SRL_RNG_PCG64, 1, 0);
    for (size_t i = 0; i < n; i++) {
        xd[i] = uniform ? 2.0 * srl_rng_uniform(&data) - 1.0 : srl_rng_normal(&data);
        xf[i] = (float)xd[i];
    }
    memset(yc, 0, n * sizeof *yc);
    memset(ys, 0, n * sizeof *ys);
    printf("# %zu %s values, %d thread(s), %d repeats alternating CPFloat / srlab / memcpy / "
           "streaming copy, medians of %s time; ratios: medians of the ratios within a repeat\n",
           n, uniform ? "uniform [-1,1]" : "standard-normal", threads, reps,
           cpu ? "CPU" : "wall-clock");
    printf("| case | CPFloat M/s | srlab M/s | memcpy M/s | streaming copy M/s | srlab / CPFloat | "
           "srlab / memcpy | srlab / streaming copy | ceiling: streaming copy / CPFloat | same |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const bench_case *bc = &cases[c];
        const srl_format *f = srl_format_find(bc->fmt);
        srl_rounding m;
        if (!f || srl_rounding_parse(&m, bc->mode, NULL) != SRL_OK) {
            fprintf(stderr, "peers_driver: case '%s' unknown to srlab\n", bc->name);
            return 1;
        }
        optstruct *o = init_optstruct();
        strcpy(o->format, "custom");
        o->precision = bc->p;
        o->emin = bc->emin;
        o->emax = bc->emax;
        o->explim = CPFLOAT_EXPRANGE_TARG;
        o->infinity = bc->inf ? CPFLOAT_INF_USE : CPFLOAT_INF_NO;
        o->round = bc->cp_round;
        o->saturation = CPFLOAT_SAT_NO;
        o->subnormal = CPFLOAT_SUBN_USE;
        o->flip = CPFLOAT_SOFTERR_NO;
        o->p = 0;
        const size_t bytes = n * (bc->single ? sizeof(float) : sizeof(double));
        const void *in = bc->single ? (const void *)xf : (const void *)xd;
        const int evict = bytes >= EVICT_MIN_BYTES;
        int err = 0;
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            srl_rng g;
            srl_rng_init(&g, bc->kind, 1, 1);
            double t[5];
            for (int c = 0; c < 4; c++) { /* CPFloat, srlab, memcpy, the streaming copy */
                /* both outputs: the one the previous contender left dirty in the caches is
                 * the other one when srlab follows CPFloat or memcpy follows srlab */
                if (evict)
                    evict_bytes(in, bytes), evict_bytes(yc, bytes), evict_bytes(ys, bytes);
                t[c] = now(cpu);
                if (c == 0)
                    err |= bc->single ? cpfloatf((float *)yc, xf, n, o) : cpfloat(yc, xd, n, o);
                else if (c == 1)
                    err |= bc->single ? srl_round_array_float((float *)ys, xf, n, f, m, &g)
                                      : srl_round_array(ys, xd, n, f, m, &g);
                else if (c == 2)
                    copy_bytes(yc, in, bytes);
                else
                    stream_copy_bytes(yc, in, bytes);
                t[c + 1] = now(cpu);
                t[c] = t[c + 1] - t[c];
            }
            if (r >= 0)
                tc[r] = t[0], tsr[r] = t[1], tm[r] = t[2], tn[r] = t[3];
        }
        /* one more pair of calls for the comparison (the copies above overwrote yc) */
        const char *same = "-";
        if (!srl_rounding_is_stochastic(m)) {
            srl_rng g;
            srl_rng_init(&g, bc->kind, 1, 1);
            err |= bc->single ? cpfloatf((float *)yc, xf, n, o) : cpfloat(yc, xd, n, o);
            err |= bc->single ? srl_round_array_float((float *)ys, xf, n, f, m, &g)
                              : srl_round_array(ys, xd, n, f, m, &g);
            same = memcmp(yc, ys, bytes) ? "NO" : "yes";
        }
        free_optstruct(o);
        if (err) {
            fprintf(stderr, "peers_driver: case '%s': a rounding call failed\n", bc->name);
            return 1;
        }
        /* the ratios before the rates: median sorts the times, which must stay paired */
        const double q_cp = paired_ratio(q, tc, tsr, reps), q_mm = paired_ratio(q, tm, tsr, reps),
                     q_nt = paired_ratio(q, tn, tsr, reps), q_ceil = paired_ratio(q, tc, tn, reps);
        const double mc = (double)n / median(tc, reps) / 1e6,
                     ms = (double)n / median(tsr, reps) / 1e6,
                     mm = (double)n / median(tm, reps) / 1e6,
                     mn = (double)n / median(tn, reps) / 1e6;
        printf("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %s |\n", bc->name,
               mc, ms, mm, mn, q_cp, q_mm, q_nt, q_ceil, same);
        fflush(stdout);
    }
    free(xd), free(yc), free(ys), free(xf), free(tc), free(tsr), free(tm), free(tn), free(q);
    return 0;
}
