/* src/theory/t13_memory.c: the prediction of theory/T13-memory.md (include/srlab/theory.h): the
 * bytes per parameter each precision strategy stores with each optimizer. */
#include "srlab/theory.h"

srl_bytes srl_t13_bytes(const srl_strategy *s, srl_optim_kind k)
{
    return srl_strategy_bytes(s, srl_optim_has_m(k), srl_optim_has_v(k));
}
