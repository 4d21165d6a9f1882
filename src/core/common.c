/* src/core/common.c: status strings, error messages, version. */
#include "srlab/common.h"

#include <stdarg.h>
#include <stdio.h>

#include "srl_config.h"

const char *srl_strerror(int status)
{
    switch (status) {
    case SRL_OK: return "success";
    case SRL_EINVAL: return "invalid argument";
    case SRL_ENOMEM: return "out of memory";
    case SRL_ERANGE: return "value out of range";
    case SRL_EPARSE: return "cannot parse input";
    case SRL_EIO: return "input/output error";
    case SRL_ENOTSUP: return "not supported";
    case SRL_EDIVERGED: return "run diverged";
    default: return "unknown error";
    }
}

int srl_err_set(srl_err *err, int status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *srl_version(void)
{
    return SRL_VERSION_STRING;
}
