/* bench/token_file.c: a token file as llm.c's data scripts write them, made up here (nothing is
 * downloaded), for bench/peers.sh --llmc's size g: srlab and llm.c train on the same file.
 *
 * The format: a header of 256 little-endian int32 (magic 20240520, version 1, the token count,
 * the rest 0), then the tokens as little-endian uint16. The tokens: N draws, token =
 * floor(V^u) - 1 for u uniform in [0, 1) from splitmix64 (seed 3), a heavy head as in real text
 * (P(token < t) = log(t + 1) / log V), every token below V. Not part of
 * srlab; compiled by peers.sh in its temporary folder.
 * Usage: token_file FILE N V */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t mix_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int put32(FILE *f, uint32_t v)
{
    const unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8),
                                (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    return fwrite(b, 1, 4, f) == 4 ? 0 : -1;
}

int main(int argc, char **argv)
{
    char *e1, *e2;
    const long n = argc == 4 ? strtol(argv[2], &e1, 10) : 0;
    const long v = argc == 4 ? strtol(argv[3], &e2, 10) : 0;
    if (argc != 4 || *e1 || *e2 || n < 2 || n > 1000000000L || v < 2 || v > 65536) {
        fprintf(stderr, "usage: token_file FILE N V (N >= 2 tokens, 2 <= V <= 65536)\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        fprintf(stderr, "token_file: cannot write '%s'\n", argv[1]);
        return 1;
    }
    int bad = put32(f, 20240520) || put32(f, 1) || put32(f, (uint32_t)n);
    for (int i = 3; i < 256 && !bad; i++)
        bad = put32(f, 0);
    uint64_t s = 3;
    for (long i = 0; i < n && !bad; i++) {
        const double u = (double)(mix_next(&s) >> 11) * 0x1p-53;
        long t = (long)floor(pow((double)v, u)) - 1;
        t = t < 0 ? 0 : t >= v ? v - 1 : t;
        const unsigned char b[2] = {(unsigned char)t, (unsigned char)(t >> 8)};
        bad = fwrite(b, 1, 2, f) != 2;
    }
    if (fclose(f) || bad) {
        fprintf(stderr, "token_file: writing '%s' failed\n", argv[1]);
        return 1;
    }
    return 0;
}
