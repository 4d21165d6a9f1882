/* tests/ops/test_mx_det.c: block quantization (include/srlab/mx.h) gives the same bits for any
 * thread count and without OpenMP, suite `determinism`.
 *
 * Built twice (tests/ops/meson.build): against libsrlab (OpenMP) and libsrlab_noomp. The
 * workload quantizes a fixed array of 300001 values (above every fork threshold; a partial last
 * block; zeros, a NaN block, binary64 subnormals, values in the clipping band) with every block
 * format, every scale rule, in sr, sr:r=3 and rn, through srl_mx_quantize and
 * srl_mx_quantize_float, and hashes every output bit, every scale code, the tensor scales and
 * the final stream counters (FNV-1a, fixed order). tests/core/determinism.sh compares the
 * OpenMP build at 1, 2, 3, 8 threads with the OpenMP-free build. Exact: no tolerance. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "srlab/mx.h"
#include "srlab/rng.h"
#include "../testdet.h"

#define SEED UINT64_C(0x3c5ca1e)
#define N 300001

static int run_digest(uint64_t *h)
{
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    float *xf = malloc(N * sizeof *xf), *yf = malloc(N * sizeof *yf);
    uint8_t *sc = malloc(N);
    if (!x || !y || !xf || !yf || !sc)
        return 1;
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, SEED, 0);
    for (size_t i = 0; i < N; i++) {
        x[i] = srl_rng_normal(&g) * ldexp(1.0, (int)(i / 4096 % 40) - 20);
        if (i % 977 == 0)
            x[i] = 0;
        if (i % 1531 == 0)
            x[i] = 0x1p-1070;
        xf[i] = (float)x[i];
    }
    x[70001] = xf[70001] = NAN;
    uint64_t d = SRL_FNV1A64_BASIS;
    static const char *const modes[] = {"sr", "sr:r=3", "rn"};
    for (size_t fi = 0; fi < srl_mx_preset_count(); fi++)
        for (int r = 0; r < SRL_MX_RULE_COUNT; r++)
            for (int mi = 0; mi < 3; mi++) {
                const srl_mx_format *f = srl_mx_preset(fi);
                srl_rounding m;
                if (srl_rounding_parse(&m, modes[mi], NULL) != SRL_OK)
                    return 1;
                srl_rng s;
                srl_rng_init(&s, SRL_RNG_PCG32, SEED + fi, (uint64_t)(3 * r + mi));
                double ts = 0;
                if (srl_mx_quantize(y, sc, &ts, x, N, f, (srl_mx_rule)r, m, &s) != SRL_OK)
                    return 1;
                d = srl_fnv1a64(y, N * sizeof *y, d);
                d = srl_fnv1a64(sc, (N + (size_t)f->block - 1) / (size_t)f->block, d);
                if (srl_mx_quantize_float(yf, sc, &ts, xf, N, f, (srl_mx_rule)r, m, &s) != SRL_OK)
                    return 1;
                d = srl_fnv1a64(yf, N * sizeof *yf, d);
                d = srl_fnv1a64(sc, (N + (size_t)f->block - 1) / (size_t)f->block, d);
                d = srl_fnv1a64(&ts, sizeof ts, d);
                d = srl_fnv1a64(&s.counter, sizeof s.counter, d);
            }
    free(x), free(y), free(xf), free(yf), free(sc);
    *h = d;
    return 0;
}

int main(int argc, char **argv)
{
    return srl_test_det_main(argc, argv, "block quantization (srl_mx_quantize, _float)", SEED,
                             run_digest);
}
