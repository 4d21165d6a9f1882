/* tests/fuzz/bulk_sweep.c: fuzz_bulk's check, driven by a seeded generator in the normal build.
 *
 * The libFuzzer build of tests/fuzz needs clang, and clang compiles only the baseline copy of
 * the instruction-set templates (src/core/isa.h): the x86-64-v3, v4 and v4i kernels, which are
 * what runs on the machines srlab is timed on, are never seen by fuzz_bulk there. This program
 * links the same target (fuzz_bulk.c's LLVMFuzzerTestOneInput: every output bit, status and
 * stream position of the vector kernels against srl_round / srl_mx_quantize) into the build
 * that has every level, and feeds it inputs that a generator aims at the chosen format: its
 * grid points, midpoints and their binary32/binary64 neighbours, the overflow threshold, the
 * subnormal range and below it, zeros, infinities, NaNs, input subnormals and random bits. Each
 * input runs at every level (base, v3, v4, v4i; a level the CPU lacks falls back to one it has).
 *
 *   bulk_sweep [--inputs N] [--seed S] [--corpus DIR] [FILE...]
 *
 * N inputs (default 2000) from seed S (default 1): input i is a pure function of (S, i). FILEs
 * and DIR's files (fuzz_bulk's corpus) are replayed at every level too. A finding aborts after
 * fuzz_bulk's message; a handler then names the input (seed, index, level) and writes its bytes
 * to bulk_sweep-failure.bin in the working directory, which fuzz_bulk or this program replays.
 * Exit 0: no finding; 2: a usage error or an unreadable file. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srlab/rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR 10
#define MAXV 600

static uint8_t buf[HDR + 8 * MAXV];
static size_t buf_len;
static char what[160];

static void on_abort(int sig)
{
    (void)sig;
    ssize_t ignored = write(2, what, strlen(what));
    const int fd = open("bulk_sweep-failure.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        ignored = write(fd, buf, buf_len);
        close(fd);
    }
    (void)ignored;
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
}

/* Run buf at every level. */
static void run_levels(void)
{
    const size_t at = strlen(what);
    for (int lvl = 0; lvl < 4; lvl++) {
        buf[8] = (uint8_t)lvl;
        snprintf(what + at, sizeof what - at, ", level %d (bytes in bulk_sweep-failure.bin)\n",
                 lvl);
        LLVMFuzzerTestOneInput(buf, buf_len);
    }
}

static double pick_sign(srl_rng *g, double x)
{
    return srl_rng_below(g, 2) ? -x : x;
}

/* One value aimed at the format with precision p and exponents [emin, emax]; f32: the input
 * is binary32 (the result is then rounded to binary32, which keeps the specials and moves
 * values off the format's points only when binary32 cannot hold them). */
static double aimed(srl_rng *g, int p, int emax, int emin, int f32)
{
    const int e = emin - 1 + (int)srl_rng_below(g, (uint64_t)(emax - emin + 3));
    const double m = ldexp(1, p - 1) + (double)srl_rng_below(g, (uint64_t)1 << (p - 1 < 52 ? p - 1 : 52));
    const double grid = ldexp(m, e - p + 1), mid = ldexp(2 * m + 1, e - p);
    const double maxv = ldexp(ldexp(1, p) - 1, emax - p + 1), q = ldexp(1, emin - p + 1);
    const double dir = srl_rng_below(g, 2) ? INFINITY : -INFINITY;
    double x;
    switch (srl_rng_below(g, 12)) {
    case 0: x = grid; break;
    case 1: x = mid; break;
    case 2: x = f32 ? nextafterf((float)mid, (float)dir) : nextafter(mid, dir); break;
    case 3: x = f32 ? nextafterf((float)grid, (float)dir) : nextafter(grid, dir); break;
    case 4: { /* the top: max, the overflow threshold, their neighbours, beyond */
        const double t[] = {maxv, maxv + ldexp(1, emax - p), 2 * maxv, ldexp(1, emax + 1)};
        x = t[srl_rng_below(g, 4)];
        if (srl_rng_below(g, 2))
            x = f32 ? nextafterf((float)x, (float)dir) : nextafter(x, dir);
        break;
    }
    case 5: { /* the subnormal range and below it: k q / 2 and neighbours */
        x = ldexp((double)srl_rng_below(g, 9), emin - p);
        if (srl_rng_below(g, 2))
            x = f32 ? nextafterf((float)x, (float)dir) : nextafter(x, dir);
        break;
    }
    case 6: x = q * srl_rng_uniform(g); break;
    case 7: { /* specials */
        const double t[] = {0.0, NAN, INFINITY};
        x = t[srl_rng_below(g, 3)];
        break;
    }
    case 8: /* an input subnormal */
        x = f32 ? ldexp((double)(1 + srl_rng_below(g, (1u << 23) - 1)), -149)
                : ldexp((double)(1 + srl_rng_below(g, ((uint64_t)1 << 52) - 1)), -1074);
        break;
    case 9: { /* random bits */
        uint64_t b = srl_rng_next(g);
        if (f32) {
            uint32_t w = (uint32_t)b;
            float v;
            memcpy(&v, &w, 4);
            return v;
        }
        memcpy(&x, &b, 8);
        return x;
    }
    case 10: /* any exponent of the input */
        x = ldexp(1 + srl_rng_uniform(g), (f32 ? -150 : -1075) + (int)srl_rng_below(g, f32 ? 280 : 2100));
        break;
    default: x = ldexp(srl_rng_uniform(g) + 0.5, e); break;
    }
    return pick_sign(g, f32 ? (double)(float)x : x);
}

/* Block formats: values around a block's exponent e0, on the elements' grids (p from 1 to 4
 * bits of fraction) and their midpoints, with a few specials, zeros and tiny values. */
static float aimed_block(srl_rng *g, int e0)
{
    const int p = 2 + (int)srl_rng_below(g, 4), e = e0 - (int)srl_rng_below(g, 10);
    const double m = ldexp(1, p - 1) + (double)srl_rng_below(g, (uint64_t)1 << (p - 1));
    const float dir = srl_rng_below(g, 2) ? INFINITY : -INFINITY;
    float x;
    switch (srl_rng_below(g, 8)) {
    case 0: x = (float)ldexp(m, e - p + 1); break;
    case 1: x = (float)ldexp(2 * m + 1, e - p); break;
    case 2: x = nextafterf((float)ldexp(2 * m + 1, e - p), dir); break;
    case 3: x = (float)ldexp(0.75 * m, e - p + 1); break;
    case 4: { /* specials */
        const float t[] = {0.0f, NAN, INFINITY, 0x1p-149f, 0x1.fffffep127f};
        x = t[srl_rng_below(g, 5)];
        break;
    }
    case 5: x = (float)ldexp(srl_rng_uniform(g), e - 12); break;
    default: x = (float)ldexp(0.5 + srl_rng_uniform(g), e); break;
    }
    return srl_rng_below(g, 2) ? -x : x;
}

static void generate(uint64_t seed, uint64_t i)
{
    srl_rng g;
    srl_rng_init(&g, SRL_RNG_PCG64, seed, i);
    for (int b = 0; b < HDR; b++)
        buf[b] = (uint8_t)srl_rng_next(&g);
    const int path = buf[0] % 4, f32 = path == 1 || path == 2;
    const int p = 2 + buf[1] % (f32 ? 23 : 52);
    const int emax = (buf[2] | buf[3] << 8) % (f32 ? 128 : 1024);
    const int span = (buf[4] | buf[5] << 8) % (f32 ? 256 : 2048);
    const int emin = buf[6] & 8 ? 1 - emax : emax - span;
    const size_t nv = 1 + srl_rng_below(&g, MAXV), w = path == 1 || path == 3 ? 4 : 8;
    int e0 = -140 + (int)srl_rng_below(&g, 268);
    for (size_t v = 0; v < nv; v++) {
        uint8_t *at = buf + HDR + v * w;
        if (path == 3) {
            if (srl_rng_below(&g, 16) == 0)
                e0 = -140 + (int)srl_rng_below(&g, 268);
            const float x = aimed_block(&g, e0);
            memcpy(at, &x, 4);
        } else if (w == 4) {
            const float x = (float)aimed(&g, p, emax, emin, 1);
            memcpy(at, &x, 4);
        } else {
            const double x = aimed(&g, p, emax, emin, f32);
            memcpy(at, &x, 8);
        }
    }
    buf_len = HDR + nv * w;
}

static int replay(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bulk_sweep: %s: cannot open\n", path);
        return 2;
    }
    buf_len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (buf_len < HDR + 1) { /* (fuzz_bulk ignores it; a corpus file that short is a mistake) */
        fprintf(stderr, "bulk_sweep: %s: %zu bytes, fewer than a header and a value\n", path,
                buf_len);
        return 2;
    }
    snprintf(what, sizeof what, "bulk_sweep: finding in %s", path);
    run_levels();
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t inputs = 2000, seed = 1, files = 0;
    const char *corpus = NULL;
    signal(SIGABRT, on_abort);
    int a = 1;
    for (; a < argc && argv[a][0] == '-' && argv[a][1] == '-'; a += 2) {
        char *end = NULL;
        if (a + 1 >= argc) {
            fprintf(stderr, "bulk_sweep: %s needs a value\n", argv[a]);
            return 2;
        }
        if (!strcmp(argv[a], "--corpus")) {
            corpus = argv[a + 1];
            continue;
        }
        const unsigned long long v = strtoull(argv[a + 1], &end, 10);
        if (!*argv[a + 1] || *end || argv[a + 1][0] == '-') {
            fprintf(stderr, "bulk_sweep: %s: '%s' is not a whole number\n", argv[a], argv[a + 1]);
            return 2;
        }
        if (!strcmp(argv[a], "--inputs"))
            inputs = v;
        else if (!strcmp(argv[a], "--seed"))
            seed = v;
        else {
            fprintf(stderr, "bulk_sweep: unknown option %s (known: --inputs, --seed, --corpus)\n",
                    argv[a]);
            return 2;
        }
    }
    for (; a < argc; a++, files++)
        if (replay(argv[a]))
            return 2;
    if (corpus) {
        DIR *d = opendir(corpus);
        if (!d) {
            fprintf(stderr, "bulk_sweep: --corpus %s: cannot open the folder\n", corpus);
            return 2;
        }
        char path[4096];
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", corpus, e->d_name);
            if (replay(path)) {
                closedir(d);
                return 2;
            }
            files++;
        }
        closedir(d);
        if (files == 0) {
            fprintf(stderr, "bulk_sweep: --corpus %s: no file\n", corpus);
            return 2;
        }
    }
    for (uint64_t i = 0; i < inputs; i++) {
        generate(seed, i);
        snprintf(what, sizeof what, "bulk_sweep: finding in input %" PRIu64 " of seed %" PRIu64, i,
                 seed);
        run_levels();
    }
    printf("bulk_sweep: %" PRIu64 " files and %" PRIu64 " generated inputs (seed %" PRIu64
           ") at every level: no finding\n", files, inputs, seed);
    return 0;
}
