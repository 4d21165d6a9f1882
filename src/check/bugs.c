/* src/check/bugs.c: the realistic defects of `srlab check --mutate bug` as the public API sees them
 * (include/srlab/check.h): their names and texts, from the one list in src/core/mutant.h, where
 * the library's own paths carry them (a build configured with -Dmutants=true; theory/README.md,
 * "Built-in defects"). srl_check_run switches one on around a check's run (src/check/catalogue.c). */
#include "check/check_impl.h"

#include <string.h>

#include "core/mutant.h"

static const struct {
    const char *name, *text;
} bug_info[SRL__DEF_COUNT] = {
    [SRL__DEF_NONE] = {"none", "no defect"},
#define SRL__DEF_INFO(NAME, name, text) [SRL__DEF_##NAME] = {name, text},
    SRL__DEFECTS(SRL__DEF_INFO)
#undef SRL__DEF_INFO
};

unsigned srl_check_bug_count(void)
{
    return SRL__DEF_COUNT - 1;
}

const char *srl_check_bug_name(unsigned b)
{
    return b >= 1 && b < SRL__DEF_COUNT ? bug_info[b].name : NULL;
}

const char *srl_check_bug_text(unsigned b)
{
    return b >= 1 && b < SRL__DEF_COUNT ? bug_info[b].text : NULL;
}

unsigned srl_check_bug_find(const char *name)
{
    for (unsigned b = 1; name && b < SRL__DEF_COUNT; b++)
        if (!strcmp(name, bug_info[b].name))
            return b;
    return 0;
}

bool srl_check_bugs_built(void)
{
    return SRL__HAVE_MUTANTS;
}

void srl__chk_defect(unsigned b)
{
    srl__mutant_set((int)b);
}
