/* src/core/isa_instantiate.h: compile the template named by SRL_ISA_TEMPLATE once per instruction
 * set (see src/core/isa.h). Usage:
 *     #define SRL_ISA_TEMPLATE "round/round_bulk_isa.h"
 *     #include "core/isa_instantiate.h"
 * No include guard: a file may instantiate several templates. */
#include "core/isa.h"

#define ISA(name) SRL_CAT(name, _base)
#include SRL_ISA_TEMPLATE
#undef ISA

#if SRL_MULTI_ISA
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v3")
#define ISA(name) SRL_CAT(name, _v3)
#include SRL_ISA_TEMPLATE
#undef ISA
#pragma GCC pop_options
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define ISA(name) SRL_CAT(name, _v4)
#include SRL_ISA_TEMPLATE
#undef ISA
#pragma GCC pop_options
#endif
