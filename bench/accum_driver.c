/* bench/accum_driver.c: srlab's emulated-accumulation matrix products beside its own binary32
 * product, in one process (issue 33, item 2), and optionally beside another build of srlab.
 *
 * Built by bench/accum.sh; never part of srlab's build. C = A B (srl_gemm_f, n x n x n,
 * row-major) on standard normal values rounded to nearest into bf16 (or e4m3 where the table
 * says so), fixed seed, for each accumulation config of the table; the first row,
 * prod=fp32:rn,acc=fp32:rn on the same bf16 inputs, is srlab's binary32 product, the reference
 * every other row's rate is divided by (paired by repeat). In every repeat each thread count
 * runs in turn, and for it every config, this build and (--against) the other build one after
 * the other, alternating which goes first, so that a change of load hits both alike. Rates
 * come from the calling thread's CPU time on one thread (a loaded machine's other processes
 * then count less) and from wall-clock time on more; speedups over one thread from wall-clock
 * times. SR configs draw from pcg32 (seed 1, stream 0) from counter 0 in every call, so each
 * call's output is a pure function of the inputs: the "same" column compares every output
 * byte of the other build's call with this build's (the bits promised unchanged).
 * --against LIB: another build's libsrlab.so (an older commit), loaded with dlopen; a config it
 * cannot parse (a key it does not know) shows "-".
 * Usage: accum_driver [--sizes "512"] [--threads "1 2"] [--reps R] [--against LIB] */
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE /* RTLD_DEEPBIND */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srlab/format.h"
#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"
#include "timing.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* A build's entry points: this build's (linked) or the --against build's (dlopened). The
 * config is an opaque buffer each build fills with its own srl_accum_parse (the struct grows
 * between versions; a larger buffer than either needs). */
typedef union accum_buf {
    srl_accum c;
    char bytes[1024];
    max_align_t align;
} accum_buf;
typedef struct build {
    accum_buf (*accum_binary64)(void);
    int (*accum_parse)(accum_buf *c, const char *spec, srl_err *err);
    int (*gemm_f)(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                  const accum_buf *c, srl_rng *rng);
    void (*rng_init)(srl_rng *r, srl_rng_kind kind, uint64_t seed, uint64_t stream);
} build;

static int load_other(build *o, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "accum_driver: --against '%s': %s\n", path, dlerror());
        return -1;
    }
    /* (POSIX: a function pointer converts from dlsym's void *) */
    *(void **)&o->accum_binary64 = dlsym(h, "srl_accum_binary64");
    *(void **)&o->accum_parse = dlsym(h, "srl_accum_parse");
    *(void **)&o->gemm_f = dlsym(h, "srl_gemm_f");
    *(void **)&o->rng_init = dlsym(h, "srl_rng_init");
    if (!o->accum_binary64 || !o->accum_parse || !o->gemm_f || !o->rng_init) {
        fprintf(stderr, "accum_driver: --against '%s': not a libsrlab\n", path);
        return -1;
    }
    return 0;
}

/* this build's, through the same signatures (srl_accum is the buffer's first member) */
static accum_buf self_binary64(void)
{
    accum_buf b;
    memset(&b, 0, sizeof b);
    b.c = srl_accum_binary64();
    return b;
}
static int self_parse(accum_buf *c, const char *spec, srl_err *err)
{
    return srl_accum_parse(&c->c, spec, err);
}
static int self_gemm_f(float *C, const float *A, const float *B, size_t m, size_t n, size_t k,
                       const accum_buf *c, srl_rng *rng)
{
    return srl_gemm_f(C, A, B, m, n, k, &c->c, rng);
}

/* The configs: the binary32 reference first. */
static const struct {
    const char *spec;
    int e4m3; /* inputs e4m3 values (else bf16) */
} cfgs[] = {
    {"prod=fp32:rn,acc=fp32:rn", 0},
    {"prod=bf16:rn,acc=fp32:rn", 0},
    {"prod=bf16:rn,acc=fp32:rn", 1},
    {"prod=bf16:rn,acc=bf16:rn", 0},
    {"prod=fp32:rn,acc=bf16:rn", 0},
    {"prod=bf16:rn,acc=bf16:sr", 0},
    {"prod=fp32:rn,acc=bf16:sr", 0},
    {"prod=fp32:rn,acc=fp16:sr", 0},
    {"prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128", 0},
    {"prod=fp32:rn,acc=(p=14,emax=127,emin=-126):rz,order=blocked:128,join=fp32:rn", 0},
    {"prod=bf16:rn,acc=bf16:sr,order=blocked:128,join=fp32:rn", 0},
};
#define NC (sizeof cfgs / sizeof cfgs[0])

/* One call of build b; its times into *dt (rate clock) and *dw (wall). */
static int run(const build *b, const accum_buf *c, float *C, const float *A, const float *B,
               size_t n, int cpu, double *dt, double *dw)
{
    srl_rng g;
    b->rng_init(&g, SRL_RNG_PCG32, 1, 0);
    const double t0 = clock_now(cpu), w0 = clock_now(0);
    const int st = b->gemm_f(C, A, B, n, n, n, c, &g);
    *dt = clock_now(cpu) - t0;
    *dw = clock_now(0) - w0;
    return st;
}

int main(int argc, char **argv)
{
    int sizes[MAXW] = {512}, threads[MAXW] = {1, 2}, ns = 1, nt = 2, reps = 7;
    const char *against = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--against")) {
            against = argv[++i];
        } else if (!list_option(argc, argv, &i, sizes, &ns, threads, &nt, &reps)) {
            fprintf(stderr, "accum_driver: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (ns < 1 || nt < 1 || reps < 1 || reps > MAXR) {
        fprintf(stderr, "accum_driver: bad --sizes, --threads or --reps\n");
        return 2;
    }
    build bs[2] = {{self_binary64, self_parse, self_gemm_f, srl_rng_init}, {0}};
    const int nb = against ? 2 : 1;
    if (against && load_other(&bs[1], against) != 0)
        return 1;
    static accum_buf cb[2][NC];
    int ok[2][NC];
    for (int b = 0; b < nb; b++)
        for (size_t ci = 0; ci < NC; ci++) {
            cb[b][ci] = bs[b].accum_binary64();
            ok[b][ci] = bs[b].accum_parse(&cb[b][ci], cfgs[ci].spec, NULL) == SRL_OK;
        }
    if (against)
        printf("# against: %s (\"-\": a config it does not parse)\n", against);
    printf("| size | threads | config | inputs | GFLOP/s | x binary32 (paired) |%s\n"
           "|---|---|---|---|---|---|%s\n",
           against ? " other build GFLOP/s | x other build (paired) | same bits |"
                   : nt > 1 ? " speedup over 1 thread |" : "",
           against ? "---|---|---|" : nt > 1 ? "---|" : "");
    const srl_format *bf16 = srl_format_find("bf16"), *e4m3 = srl_format_find("e4m3");
    int status = 0;
    for (int si = 0; si < ns; si++) {
        const size_t n = (size_t)sizes[si], nn = n * n;
        float *A[2], *B[2], *C[2];
        for (int q = 0; q < 2; q++) {
            A[q] = malloc(nn * sizeof(float));
            B[q] = malloc(nn * sizeof(float));
            C[q] = malloc(nn * sizeof(float));
            if (!A[q] || !B[q] || !C[q]) {
                fprintf(stderr, "accum_driver: cannot allocate %zu x %zu matrices\n", n, n);
                return 1;
            }
        }
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_PCG32, 1, 0);
        for (size_t i = 0; i < nn; i++) {
            const double a = srl_rng_normal(&g), b = srl_rng_normal(&g);
            A[0][i] = (float)srl_round(a, bf16, SRL_ROUND_RN, NULL);
            B[0][i] = (float)srl_round(b, bf16, SRL_ROUND_RN, NULL);
            A[1][i] = (float)srl_round(a, e4m3, SRL_ROUND_RN, NULL);
            B[1][i] = (float)srl_round(b, e4m3, SRL_ROUND_RN, NULL);
        }
        static double t[MAXW][NC][2][MAXR], w[MAXW][NC][2][MAXR]; /* rate's time, wall */
        static int same[NC];
        for (size_t ci = 0; ci < NC; ci++)
            same[ci] = 1;
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            for (int ti = 0; ti < nt; ti++) {
#ifdef _OPENMP
                omp_set_num_threads(threads[ti]);
#endif
                const int cpu = threads[ti] == 1;
                for (size_t ci = 0; ci < NC; ci++) {
                    const int in = cfgs[ci].e4m3;
                    for (int q = 0; q < nb; q++) {
                        const int b = nb == 2 ? (r + ti + (int)ci + q) & 1 : 0;
                        if (!ok[b][ci])
                            continue;
                        double dt, dw;
                        if (run(&bs[b], &cb[b][ci], C[b], A[in], B[in], n, cpu, &dt, &dw) !=
                            SRL_OK) {
                            fprintf(stderr, "accum_driver: srl_gemm_f failed (%s)\n",
                                    cfgs[ci].spec);
                            return 1;
                        }
                        if (r >= 0) {
                            t[ti][ci][b][r] = dt;
                            w[ti][ci][b][r] = dw;
                        }
                    }
                    if (nb == 2 && ok[1][ci] && memcmp(C[0], C[1], nn * sizeof(float)) != 0)
                        same[ci] = 0;
                }
            }
        }
        const double gf = 2.0 * (double)n * (double)n * (double)n / 1e9;
        for (int ti = 0; ti < nt; ti++)
            for (size_t ci = 0; ci < NC; ci++) {
                double tt[MAXR], ratio[MAXR], vs[MAXR], sp[MAXR], to[MAXR];
                for (int r = 0; r < reps; r++) {
                    tt[r] = t[ti][ci][0][r];
                    ratio[r] = t[ti][0][0][r] / t[ti][ci][0][r];
                    sp[r] = w[0][ci][0][r] / w[ti][ci][0][r];
                    if (nb == 2 && ok[1][ci]) {
                        to[r] = t[ti][ci][1][r];
                        vs[r] = t[ti][ci][1][r] / t[ti][ci][0][r];
                    }
                }
                char rs[64], extra[160] = "";
                spread(rs, sizeof rs, ratio, reps);
                if (nb == 2 && ok[1][ci]) {
                    char vss[64];
                    spread(vss, sizeof vss, vs, reps);
                    snprintf(extra, sizeof extra, " %.1f | %s | %s |", gf / median(to, reps),
                             vss, same[ci] ? "yes" : "NO");
                    status |= !same[ci];
                } else if (nb == 2) {
                    snprintf(extra, sizeof extra, " - | - | - |");
                } else if (nt > 1) {
                    char sps[64] = "-";
                    if (ti > 0 && threads[0] == 1)
                        spread(sps, sizeof sps, sp, reps);
                    snprintf(extra, sizeof extra, " %s |", sps);
                }
                printf("| %zu | %d | `%s` | %s | %.1f | %s |%s\n", n, threads[ti],
                       cfgs[ci].spec, cfgs[ci].e4m3 ? "e4m3" : "bf16", gf / median(tt, reps),
                       rs, extra);
            }
        for (int q = 0; q < 2; q++) {
            free(A[q]);
            free(B[q]);
            free(C[q]);
        }
    }
    return status;
}
