/* src/check/t13_memory.c: the checks T13a-f of theory/T13-memory.md: the bytes per parameter
 * srl_weights_alloc actually allocates for each preset strategy with AdamW (3713 parameters in two
 * tensors, padding excluded) against the T13 table (the row's bytes), which `srlab theory T13`
 * prints from srl_t13_bytes: both must agree (exact). */
#include "check/check_impl.h"

#include <math.h>

#include "srlab/optim.h"
#include "srlab/rng.h"
#include "srlab/strategy.h"
#include "srlab/theory.h"

int srl__chk_memory(srl_check_result *out, const srl__chk_row *row, const srl_check_opts *o,
                    srl_err *err)
{
    const char *strategy = row->params.memory.strategy;
    const size_t table = row->params.memory.bytes;
    srl_strategy s;
    int st = srl_strategy_preset(&s, strategy, err);
    if (st)
        return st;
    const srl_optim_kind k =
        o->mutation == SRL_CHECK_MUT_EXPERIMENT ? SRL_OPTIM_SGD : SRL_OPTIM_ADAMW;
    srl_weight_spec spec[2] = {{"w", 2, {100, 37, 0, 0}}, {"b", 1, {13, 0, 0, 0}}};
    srl_rng root;
    srl_rng_init(&root, SRL_RNG_DEFAULT, 1, srl_hash_str("T13"));
    srl_weights W;
    if ((st = srl_weights_alloc(&W, spec, 2, &s, k, &root, err)))
        return st;
    const double meas = srl_weights_bytes_per_param(&W);
    srl_weights_free(&W);
    const size_t printed = srl_t13_bytes(&s, SRL_OPTIM_ADAMW).total; /* `srlab theory T13` */
    srl__chk_result_begin(
        out, row->check.id,
        "bytes per parameter actually allocated by srl_weights_alloc for "
        "%s with AdamW (3713 parameters in 2 tensors, padding excluded); predicted "
        "the T13 table (srlab theory T13 prints %zu)",
        strategy, printed);
    srl__chk_result_set(out, SRL_CHECK_EXACT, meas, meas, meas, (double)table);
    if (printed != table) {
        out->pass = false;
        out->margin = fmin(out->margin, -fabs((double)printed - (double)table) / (double)table);
    }
    return SRL_OK;
}
