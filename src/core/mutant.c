/* src/core/mutant.c: the switch of the built-in defects (src/core/mutant.h). */
#include "core/mutant.h"

#if defined(SRL_MUTANTS)
int srl__mutant = SRL__DEF_NONE;

void srl__mutant_set(int k)
{
    srl__mutant = k > SRL__DEF_NONE && k < SRL__DEF_COUNT ? k : SRL__DEF_NONE;
}
#else
void srl__mutant_set(int k)
{
    (void)k; /* a build without the defects: nothing to switch */
}
#endif
