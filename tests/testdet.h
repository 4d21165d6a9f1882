/* tests/testdet.h: the main of a determinism test (suite `determinism`), shared by tests/core,
 * tests/linalg, tests/train and tests/problems.
 *
 * A test passes `int run_digest(uint64_t *h)`: run a fixed workload and hash every bit of its
 * result into *h; return 0, or non-zero when the workload failed. srl_test_det_main then
 *   - with --digest, prints the digest alone (exit 1 if the workload failed), for
 *     tests/core/determinism.sh, which compares it with the build without OpenMP;
 *   - otherwise, under OpenMP, runs the workload at 1, 2, 3 and 8 threads (dynamic adjustment
 *     off) and CHECKs that every digest equals the 1-thread one; without OpenMP, runs it once.
 * `what` names the workload in the PASS/FAIL line; `seed` is echoed in a failure message. */
#ifndef SRL_TESTDET_H
#define SRL_TESTDET_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "testutil.h"

static int srl_test_det_main(int argc, char **argv, const char *what, uint64_t seed,
                             int (*run_digest)(uint64_t *h))
{
    uint64_t h = 0;
    if (argc > 1 && strcmp(argv[1], "--digest") == 0) {
        if (run_digest(&h))
            return 1;
        printf("%016llx\n", (unsigned long long)h);
        return 0;
    }
#ifdef _OPENMP
    const int threads[4] = {1, 2, 3, 8};
    uint64_t hs[4] = {0};
    for (int t = 0; t < 4; t++) {
        omp_set_dynamic(0);
        omp_set_num_threads(threads[t]);
        CHECK(omp_get_max_threads() == threads[t], "omp_set_num_threads(%d) ignored", threads[t]);
        CHECK(run_digest(&hs[t]) == 0, "the workload failed at %d threads", threads[t]);
        printf("%d thread%s: digest %016llx\n", threads[t], threads[t] > 1 ? "s" : "",
               (unsigned long long)hs[t]);
        CHECK(hs[t] == hs[0], "seed=%#llx: digest at %d threads %016llx, at 1 thread %016llx",
              (unsigned long long)seed, threads[t], (unsigned long long)hs[t],
              (unsigned long long)hs[0]);
    }
    printf("%s: %s digest identical at 1, 2, 3, 8 threads\n", srl_test_failures ? "FAIL" : "PASS",
           what);
#else
    (void)seed;
    CHECK(run_digest(&h) == 0, "the workload failed");
    printf("no OpenMP: digest %016llx\n", (unsigned long long)h);
    printf("%s: %s workload without OpenMP\n", srl_test_failures ? "FAIL" : "PASS", what);
#endif
    TEST_END();
}

#endif
