/* tests/fuzz/fuzz_util.h: what the libFuzzer targets of tests/fuzz share.
 *
 * A target gets arbitrary bytes. The parsers take NUL-terminated text, so the helpers copy the
 * bytes into a fresh heap block with a NUL after them (AddressSanitizer then catches a read one
 * byte past the text), split them into parts at a separator, or write them to a file in the
 * target's own temporary directory, for the readers that take a path. */
#ifndef SRL_FUZZ_UTIL_H
#define SRL_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The bytes as a malloc'd NUL-terminated string (an embedded NUL ends the text early, as it
 * would on a command line). Aborts when out of memory: that is a finding too. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* Split data at the first `sep` byte: part 0 before it, part 1 after (empty when absent). */
static inline void fuzz_split(const uint8_t *data, size_t size, uint8_t sep, const uint8_t **a,
                              size_t *alen, const uint8_t **b, size_t *blen)
{
    const uint8_t *cut = size ? memchr(data, sep, size) : NULL;
    *a = data;
    *alen = cut ? (size_t)(cut - data) : size;
    *b = cut ? cut + 1 : data + size;
    *blen = cut ? size - *alen - 1 : 0;
}

/* A private temporary directory for the process (made once, with its path in a static buffer),
 * and the target's working directory, so that any file a command writes lands there. */
static inline const char *fuzz_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/srlab-fuzz-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(dir) || chdir(dir) != 0)
            abort();
    }
    return dir;
}

/* What every target that runs srlab code beyond a parser does first: GSL reports errors by
 * status (its default handler aborts), and files go to the private temporary directory. */
static inline int fuzz_initialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gsl_set_error_handler_off();
    fuzz_tmpdir();
    return 0;
}

/* Write the bytes to `name` in the temporary directory; returns the path (static buffer). */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_tmpdir(), name);
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
