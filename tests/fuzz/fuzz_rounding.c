/* tests/fuzz/fuzz_rounding.c: rounding-mode specs (srl_rounding_parse), the text of -r and of
 * every rounding key. A parsed mode must be valid and its canonical name must parse back to it;
 * a refusal must carry a message. */
#include "srlab/mode.h"

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_cstr(data, size);
    srl_rounding m, m2;
    srl_err err;
    err.msg[0] = 0;
    if (srl_rounding_parse(&m, spec, &err) == SRL_OK) {
        char name[64];
        if (!srl_rounding_valid(m))
            abort(); /* an invalid mode accepted */
        srl_rounding_name(name, sizeof name, m);
        if (srl_rounding_parse(&m2, name, &err) != SRL_OK || m2.mode != m.mode || m2.r != m.r)
            abort(); /* the canonical name does not give the mode back */
    } else if (!err.msg[0] || memchr(err.msg, 0, sizeof err.msg) == NULL) {
        abort(); /* a refusal without a message */
    }
    free(spec);
    return 0;
}
