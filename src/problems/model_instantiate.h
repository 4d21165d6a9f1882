/* src/problems/model_instantiate.h: compile a model's forward and backward pass, the template
 * named by SRL_MODEL_TEMPLATE, three times (the way src/core/isa_instantiate.h compiles a template
 * per instruction set). Usage, once per file:
 *     #define SRL_MODEL_TEMPLATE "problems/gpt_tpl.h"
 *     #include "problems/model_instantiate.h"
 * The instances, with the template's arguments (src/problems/model_impl.h names the modes):
 *   name_emu    REAL float,  PASS_MODE SRL__PASS_EMU    every matrix product a kernel call with
 *               the strategy's accumulation config, every stored activation and gradient rounded
 *               into its slot (the training pass)
 *   name_plain  REAL float,  PASS_MODE SRL__PASS_PLAIN  the same operations in plain loops, no
 *               extra rounding (equal to _emu with the fp32 strategy, bit for bit)
 *   name_f64    REAL double, PASS_MODE SRL__PASS_F64    plain loops in binary64 (evaluation,
 *               gradient checks)
 * TPL(name) is the instance's name for `name`. Each instance first gets the operations the models
 * share (src/problems/model_ops.h: products, roundings, GELU, cross-entropy), then the template. */
#define REAL float
#define TPL(name) name##_emu
#define PASS_MODE SRL__PASS_EMU
#include "problems/model_ops.h"
#include SRL_MODEL_TEMPLATE
#undef REAL
#undef TPL
#undef PASS_MODE

#define REAL float
#define TPL(name) name##_plain
#define PASS_MODE SRL__PASS_PLAIN
#include "problems/model_ops.h"
#include SRL_MODEL_TEMPLATE
#undef REAL
#undef TPL
#undef PASS_MODE

#define REAL double
#define TPL(name) name##_f64
#define PASS_MODE SRL__PASS_F64
#include "problems/model_ops.h"
#include SRL_MODEL_TEMPLATE
#undef REAL
#undef TPL
#undef PASS_MODE

#undef R_EXP
#undef R_LOG
#undef R_TANH
#undef R_SQRT
