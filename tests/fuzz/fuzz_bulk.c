/* tests/fuzz/fuzz_bulk.c: the vector bulk kernels against the one-element reference, on formats,
 * modes, instruction-set levels and values the fuzzer chooses. Where the suites
 * (tests/round/test_round_isa.c) compare a fixed list of formats, this target searches the
 * space of custom formats (p, emax, emin, subnormals, inf, saturate) for one whose parameters
 * put a kernel's branch in the wrong place: a finding is any output bit, status or stream
 * position that differs from srl_round (element-wise paths) or from srl_mx_quantize on binary64
 * (block formats: srl_mx_quantize_float's kernels).
 *
 * Input: ten header bytes, then the values (8-byte binary64 or 4-byte binary32 bit patterns,
 * repeated to at least 64 so that whole vector groups run; at most 4096).
 *   [0] path: 0 binary64 in and out, 1 binary32 in and out, 2 binary64 in and binary32 out,
 *       3 a block format (binary32 in and out)
 *   [1] p - 2 (mod 52)   [2..3] emax (little-endian, mod 1024)   [4..5] emax - emin (mod 2048)
 *       (paths 1 and 2: mod 23, 128 and 256, formats near binary32's range)
 *   [6] bit 0 subnormals off, bit 1 inf off, bit 2 saturate on, bit 3 no emin= (the IEEE rule)
 *   [7] rounding mode (mod 13: rn rna rz ru rd ro sr sr-eq sr:r=R for R = 1, 7, 16, 23, 64)
 *   [8] instruction-set level (mod 4: base, v3, v4, v4i; a level the CPU lacks falls back)
 *   [9] block formats: preset (mod the preset count), rule (bits 4-5, mod 3) */
#include <inttypes.h>
#include <math.h>

#include "round/round_bulk.h" /* srl__round_bulk_isa */
#include "srlab/format.h"
#include "srlab/mx.h"
#include "srlab/rng.h"
#include "srlab/rounding.h"

#include "fuzz_util.h"

#define HDR 10
#define NMIN 64
#define NMAX 4096

static const char *const modes[] = {"rn", "rna", "rz",     "ru",     "rd",      "ro",     "sr",
                                    "sr-eq", "sr:r=1", "sr:r=7", "sr:r=16", "sr:r=23", "sr:r=64"};

static void differ(const char *what, size_t i, double x, double got, double want)
{
    fprintf(stderr, "fuzz_bulk: %s: element %zu, x = %a: bulk %a, reference %a\n", what, i, x,
            got, want);
    abort();
}

static void check_mx(const float *xf, size_t n, uint8_t sel, srl_rounding m)
{
    const srl_mx_format *f = srl_mx_preset(sel % srl_mx_preset_count());
    const srl_mx_rule r = (srl_mx_rule)((sel >> 4) % SRL_MX_RULE_COUNT);
    float *y = malloc(n * sizeof *y);
    double *xd = malloc(n * sizeof *xd);
    uint8_t *c = malloc(n), *cr = malloc(n); /* ceil(n / block) <= n bytes */
    if (!y || !xd || !c || !cr)
        abort();
    for (size_t i = 0; i < n; i++)
        xd[i] = (double)xf[i];
    srl_rng bulk, ref;
    srl_rng_init(&bulk, SRL_RNG_PCG64, 1, 2);
    ref = bulk;
    const int st = srl_mx_quantize_float(y, c, NULL, xf, n, f, r, m, &bulk);
    const int sr = srl_mx_quantize(xd, cr, NULL, xd, n, f, r, m, &ref);
    if (st != sr || bulk.counter != ref.counter) {
        fprintf(stderr, "fuzz_bulk: %s %s: status %d (reference %d), counter %" PRIu64
                " (reference %" PRIu64 ")\n", f->name, srl_mx_rule_name(r), st, sr,
                bulk.counter, ref.counter);
        abort();
    }
    const size_t nb = (n + (size_t)f->block - 1) / (size_t)f->block;
    for (size_t b = 0; b < nb && st == SRL_OK; b++)
        if (c[b] != cr[b]) {
            fprintf(stderr, "fuzz_bulk: %s %s: block %zu: scale code %u, reference %u\n",
                    f->name, srl_mx_rule_name(r), b, c[b], cr[b]);
            abort();
        }
    for (size_t i = 0; i < n && st == SRL_OK; i++) {
        const float want = (float)xd[i];
        if (memcmp(&y[i], &want, sizeof want))
            differ(f->name, i, (double)xf[i], (double)y[i], (double)want);
    }
    free(y), free(xd), free(c), free(cr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < HDR)
        return 0;
    const int path = data[0] % 4, f32 = path == 1 || path == 2; /* binary32 results: the */
    const int p = 2 + data[1] % (f32 ? 23 : 52);                   /* format within binary32 */
    const int emax = (data[2] | data[3] << 8) % (f32 ? 128 : 1024);
    const int span = (data[4] | data[5] << 8) % (f32 ? 256 : 2048);
    char spec[128];
    snprintf(spec, sizeof spec, "p=%d,emax=%d%s%s%s", p, emax, data[6] & 1 ? ",subnormals=off" : "",
             data[6] & 2 ? ",inf=off" : "", data[6] & 4 ? ",saturate=on" : "");
    if (!(data[6] & 8))
        snprintf(spec + strlen(spec), sizeof spec - strlen(spec), ",emin=%d", emax - span);
    srl_format f;
    srl_rounding m;
    srl_err err;
    if (srl_rounding_parse(&m, modes[data[7] % (sizeof modes / sizeof *modes)], &err) != SRL_OK)
        abort();
    if (path != 3 && srl_format_parse(&f, spec, &err) != SRL_OK)
        return 0; /* (fuzz_format covers the refusals) */
    srl__round_bulk_isa(data[8] % 4);
    const size_t w = path == 1 || path == 3 ? 4 : 8, nc = (size - HDR) / w;
    if (nc == 0)
        return 0;
    const size_t n = nc < NMIN ? NMIN : nc > NMAX ? NMAX : nc;
    double *xd = malloc(n * sizeof *xd), *yd = malloc(n * sizeof *yd);
    float *xf = malloc(n * sizeof *xf), *yf = malloc(n * sizeof *yf);
    if (!xd || !yd || !xf || !yf)
        abort();
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = data + HDR + (i % nc) * w;
        if (w == 8)
            memcpy(&xd[i], b, 8), xf[i] = (float)xd[i];
        else
            memcpy(&xf[i], b, 4), xd[i] = (double)xf[i];
    }
    if (path == 3) {
        check_mx(xf, n, data[9], m);
    } else {
        srl_rng bulk, ref;
        srl_rng_init(&bulk, SRL_RNG_PCG64, 1, 2);
        ref = bulk;
        const int st = path == 0   ? srl_round_array(yd, xd, n, &f, m, &bulk)
                       : path == 1 ? srl_round_array_float(yf, xf, n, &f, m, &bulk)
                                   : srl_round_array_d2f(yf, xd, n, &f, m, &bulk);
        if (f32 && !srl_format_fits_float(&f)) { /* (emin - p + 1 below -149) */
            if (st != SRL_EINVAL)
                abort(); /* a binary32 result for a format binary32 cannot hold */
            goto done;
        }
        const uint64_t moved = srl_rounding_is_stochastic(m) ? n : 0;
        if (st != SRL_OK || bulk.counter != ref.counter + moved) {
            fprintf(stderr, "fuzz_bulk: %s path %d: status %d, counter %" PRIu64 "\n", f.name,
                    path, st, bulk.counter);
            abort();
        }
        for (size_t i = 0; i < n; i++) {
            const double in = path == 1 ? (double)xf[i] : xd[i];
            const double r = srl_round(in, &f, m, &ref);
            const float rf = (float)r;
            if (path == 0 ? memcmp(&yd[i], &r, sizeof r) : memcmp(&yf[i], &rf, sizeof rf))
                differ(f.name, i, in, path == 0 ? yd[i] : (double)yf[i], r);
        }
    }
done:
    free(xd), free(yd), free(xf), free(yf);
    return 0;
}
