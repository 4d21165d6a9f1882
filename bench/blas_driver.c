/* bench/blas_driver.c: srlab's binary32 matrix product beside OpenBLAS's sgemm, in one process
 * (issue 33).
 *
 * Built by bench/peers.sh --openblas; never part of srlab's build. OpenBLAS is loaded with dlopen
 * from the file the user names (srlab is never linked with it, and GSL's own cblas_sgemm, which
 * srlab's link line brings in, cannot stand in for it). C = A B with
 * A, B n x n row-major, standard normal binary32 values (fixed seed): srlab's srl_gemm_f with
 * prod=fp32:rn,acc=fp32:rn (every output summed in the order l = 0, 1, ..., one rounding per
 * product and per addition: the order and bits srlab promises) and OpenBLAS's cblas_sgemm
 * (alpha 1, beta 0: its own order, with fma). In every repeat each thread count runs in turn,
 * and for each both contenders, alternating which goes first, so that a change of load hits
 * them alike; before each call the driver sleeps 0.2 s, by which time the threads of the
 * previous call (OpenBLAS's spin about 0.1 s before they sleep, libgomp's less) have stopped
 * spinning. Rates are from the calling thread's CPU time on one thread (a loaded machine's other
 * processes then count less) and wall-clock time on more; speedups from wall-clock times. Per
 * (size, thread count): the median GFLOP/s of each, the
 * ratio srlab / OpenBLAS paired by repeat (median, smallest, largest), and each one's speedup
 * over one thread paired by repeat; then the same speedups of a second call made right after
 * each timed one ("back to back": the threads still spinning, the operands in the caches),
 * which show how much of the speedup after a pause the pause itself takes (a sleeping worker
 * takes about 0.1 ms to start on the VM we measure on, and the other processes that ran during
 * the pause have evicted the operands), for both libraries alike. OPENBLAS_CORETYPE (read by OpenBLAS when it loads) picks
 * its kernel; the first line names the one it uses.
 * Usage: blas_driver --openblas LIB [--sizes "512 1024"] [--threads "1 2"] [--reps R] */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srlab/kernels.h"
#include "srlab/rng.h"
#include "timing.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* OpenBLAS's entry points (cblas.h's values of the two enums). */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111 };
static void (*cblas_sgemm)(int order, int transa, int transb, int m, int n, int k, float alpha,
                           const float *a, int lda, const float *b, int ldb, float beta,
                           float *c, int ldc);
static char *(*openblas_get_corename)(void);
static char *(*openblas_get_config)(void);
static void (*openblas_set_num_threads)(int n);

static int load_openblas(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "blas_driver: --openblas '%s': %s\n", path, dlerror());
        return -1;
    }
    /* (POSIX: a function pointer converts from dlsym's void *) */
    *(void **)&cblas_sgemm = dlsym(h, "cblas_sgemm");
    *(void **)&openblas_get_corename = dlsym(h, "openblas_get_corename");
    *(void **)&openblas_get_config = dlsym(h, "openblas_get_config");
    *(void **)&openblas_set_num_threads = dlsym(h, "openblas_set_num_threads");
    if (!cblas_sgemm || !openblas_get_corename || !openblas_get_config ||
        !openblas_set_num_threads) {
        fprintf(stderr, "blas_driver: --openblas '%s': not OpenBLAS (no cblas_sgemm, "
                "openblas_get_corename, ...)\n", path);
        return -1;
    }
    return 0;
}


static void pause_threads(void)
{
    const struct timespec ts = {0, 200000000};
    nanosleep(&ts, NULL);
}

/* C = A B by OpenBLAS (who 0) or srlab (1); non-zero (a message printed) if srlab fails. */
static int product(int who, const float *A, const float *B, float *C, size_t n, const srl_accum *c)
{
    if (who == 0) {
        cblas_sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)n, (int)n, (int)n, 1.0f,
                    A, (int)n, B, (int)n, 0.0f, C, (int)n);
        return 0;
    }
    if (srl_gemm_f(C, A, B, n, n, n, c, NULL) != SRL_OK) {
        fprintf(stderr, "blas_driver: srl_gemm_f failed\n");
        return 1;
    }
    return 0;
}

static void set_threads(int t)
{
#ifdef _OPENMP
    omp_set_num_threads(t);
#endif
    openblas_set_num_threads(t);
}

int main(int argc, char **argv)
{
    int sizes[MAXW] = {512, 1024}, threads[MAXW] = {1, 2}, ns = 2, nt = 2, reps = 9;
    const char *lib = NULL;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--openblas")) {
            lib = argv[++i];
        } else if (!list_option(argc, argv, &i, sizes, &ns, threads, &nt, &reps)) {
            fprintf(stderr, "blas_driver: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!lib || ns < 1 || nt < 1 || reps < 1 || reps > MAXR) {
        fprintf(stderr, "blas_driver: missing --openblas, or bad --sizes, --threads or --reps\n");
        return 2;
    }
    if (load_openblas(lib) != 0)
        return 1;
    srl_accum c = srl_accum_binary64();
    if (srl_accum_parse(&c, "prod=fp32:rn,acc=fp32:rn", NULL) != SRL_OK)
        return 1;
    printf("# OpenBLAS kernel: %s (%s)\n", openblas_get_corename(), openblas_get_config());
    printf("| size | threads | OpenBLAS GFLOP/s | srlab GFLOP/s | srlab / OpenBLAS (paired) | "
           "OpenBLAS speedup over 1 thread | srlab speedup over 1 thread | "
           "OpenBLAS speedup, back to back | srlab speedup, back to back |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    for (int si = 0; si < ns; si++) {
        const size_t n = (size_t)sizes[si];
        float *A = malloc(n * n * sizeof *A), *B = malloc(n * n * sizeof *B);
        float *C = malloc(n * n * sizeof *C);
        if (!A || !B || !C) {
            fprintf(stderr, "blas_driver: cannot allocate %zu x %zu matrices\n", n, n);
            return 1;
        }
        srl_rng g;
        srl_rng_init(&g, SRL_RNG_PCG32, 1, 0);
        for (size_t i = 0; i < n * n; i++) {
            A[i] = (float)srl_rng_normal(&g);
            B[i] = (float)srl_rng_normal(&g);
        }
        /* rate's time, wall time, wall time back to back */
        static double t[MAXW][2][MAXR], w[MAXW][2][MAXR], wb[MAXW][2][MAXR];
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            for (int ti = 0; ti < nt; ti++) {
                set_threads(threads[ti]);
                for (int q = 0; q < 2; q++) {
                    const int who = (r + ti + q) & 1; /* 0 OpenBLAS, 1 srlab */
                    pause_threads();
                    const int cpu = threads[ti] == 1;
                    const double t0 = clock_now(cpu), w0 = clock_now(0);
                    if (product(who, A, B, C, n, &c) != 0)
                        return 1;
                    const double dt = clock_now(cpu) - t0, dw = clock_now(0) - w0;
                    /* the same call again at once: back to back */
                    const double b0 = clock_now(0);
                    if (product(who, A, B, C, n, &c) != 0)
                        return 1;
                    const double db = clock_now(0) - b0;
                    if (r >= 0) {
                        t[ti][who][r] = dt;
                        w[ti][who][r] = dw;
                        wb[ti][who][r] = db;
                    }
                }
            }
        }
        const double gf = 2.0 * (double)n * (double)n * (double)n / 1e9;
        for (int ti = 0; ti < nt; ti++) {
            double ratio[MAXR], sp[2][MAXR], spb[2][MAXR], tt[2][MAXR];
            for (int r = 0; r < reps; r++) {
                ratio[r] = t[ti][0][r] / t[ti][1][r];
                for (int q = 0; q < 2; q++) {
                    sp[q][r] = w[0][q][r] / w[ti][q][r];
                    spb[q][r] = wb[0][q][r] / wb[ti][q][r];
                    tt[q][r] = t[ti][q][r];
                }
            }
            char rs[64], s0[64] = "-", s1[64] = "-", b0[64] = "-", b1[64] = "-";
            spread(rs, sizeof rs, ratio, reps);
            if (ti > 0 && threads[0] == 1) {
                spread(s0, sizeof s0, sp[0], reps);
                spread(s1, sizeof s1, sp[1], reps);
                spread(b0, sizeof b0, spb[0], reps);
                spread(b1, sizeof b1, spb[1], reps);
            }
            printf("| %zu | %d | %.1f | %.1f | %s | %s | %s | %s | %s |\n", n, threads[ti],
                   gf / median(tt[0], reps), gf / median(tt[1], reps), rs, s0, s1, b0, b1);
        }
        free(A);
        free(B);
        free(C);
    }
    return 0;
}
