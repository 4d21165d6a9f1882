/* src/core/spec_items.h: cutting "KEY=VALUE,KEY=VALUE,..." texts into items (private).
 *
 * An item ends at the next comma outside parentheses, so a value may hold a parenthesised list
 * ("prod=(p=9,emax=127):rn"). Used by the block GEMM's config (src/linalg/mx_gemm.c); the
 * accumulation config's parser (src/linalg/accum.c) has the same loop written out. */
#ifndef SRL_CORE_SPEC_ITEMS_H
#define SRL_CORE_SPEC_ITEMS_H

#include <stdbool.h>

/* The item starting at *cur, NUL-terminated in place; *cur moves to the next item (at the text's
 * end when there is none). *trailing is set when the text ends with a comma after this item. */
static inline char *srl__spec_item(char **cur, bool *trailing)
{
    char *item = *cur, *end = item;
    int depth = 0;
    for (; *end && (*end != ',' || depth > 0); end++)
        depth += (*end == '(') - (*end == ')');
    const bool more = *end == ',';
    *end = '\0';
    *trailing = more && !end[1];
    *cur = more ? end + 1 : end;
    return item;
}

#endif
