/* srlab/common.h: status codes, error messages and attributes shared by every module.
 *
 * Every fallible function returns an int status: SRL_OK (0) or a negative SRL_E* code, and is
 * marked SRL_WUR so an ignored failure is a compiler warning. Functions that parse user text also
 * take an optional srl_err * that receives one human-readable sentence naming the offending input.
 * The library never prints and never exits; turning a status into a message and an exit code is
 * the command-line tool's job. */
#ifndef SRLAB_COMMON_H
#define SRLAB_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SRL_WUR __attribute__((warn_unused_result))
#else
#define SRL_WUR
#endif

enum {
    SRL_OK = 0,
    SRL_EINVAL = -1,   /* an argument is outside the function's domain */
    SRL_ENOMEM = -2,   /* an allocation failed */
    SRL_ERANGE = -3,   /* a value does not fit (a format, an encoding, a size) */
    SRL_EPARSE = -4,   /* user text could not be parsed */
    SRL_EIO = -5,      /* reading or writing a file failed */
    SRL_ENOTSUP = -6,  /* valid, but not supported by this build or path */
    SRL_EDIVERGED = -7 /* a run produced a non-finite value and stopped */
};

/* A short fixed message for a status code ("invalid argument", ...); never NULL. */
const char *srl_strerror(int status);

/* One sentence describing what went wrong, filled by parsing and validating functions. */
#define SRL_ERR_LEN 512
typedef struct srl_err {
    char msg[SRL_ERR_LEN];
} srl_err;

/* printf-style fill of err (NULL-safe); returns status so callers can write
 * `return srl_err_set(err, SRL_EPARSE, "...", ...);`. */
int srl_err_set(srl_err *err, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The library version, "MAJOR.MINOR.PATCH". */
const char *srl_version(void);

#ifdef __cplusplus
}
#endif
#endif
