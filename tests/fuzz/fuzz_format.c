/* tests/fuzz/fuzz_format.c: format specs (srl_format_parse), the text of -f and of every
 * format key. Beyond memory safety it checks what a parsed format promises: the message is a
 * terminated string, the parameters are within the documented bounds, and the canonical name
 * parses back to the same format. */
#include <math.h>

#include "srlab/format.h"

#include "fuzz_util.h"

static void same(const srl_format *a, const srl_format *b)
{
    if (a->p != b->p || a->emin != b->emin || a->emax != b->emax ||
        a->subnormals != b->subnormals || a->inf != b->inf || a->saturate != b->saturate ||
        strcmp(a->name, b->name) != 0)
        abort(); /* the canonical name does not give the format back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = fuzz_cstr(data, size);
    srl_format f;
    srl_err err;
    err.msg[0] = 0;
    if (srl_format_parse(&f, spec, &err) == SRL_OK) {
        if (f.p < 2 || f.p > 53 || f.emin > f.emax || !(f.xmax > 0) || !isfinite(f.xmax) ||
            !(f.xsub > 0) || memchr(f.name, 0, sizeof f.name) == NULL)
            abort(); /* a format outside the documented bounds */
        srl_format g;
        if (srl_format_parse(&g, f.name, &err) != SRL_OK)
            abort(); /* the canonical name is refused */
        same(&f, &g);
    } else if (memchr(err.msg, 0, sizeof err.msg) == NULL || !err.msg[0]) {
        abort(); /* a refusal without a message */
    }
    free(spec);
    return 0;
}
