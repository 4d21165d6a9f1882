/* src/ops/mx_impl.h: block quantization entry points for the library's own callers (private; the
 * contract is include/srlab/mx.h). */
#ifndef SRL_OPS_MX_IMPL_H
#define SRL_OPS_MX_IMPL_H

#include <stddef.h>

#include "srlab/mx.h"

/* x[0..n) quantized as srl_mx_quantize quantizes it, on the calling thread (no parallel region),
 * with the tensor scale ts given (NVFP4; srl_mx_tensor_scale of the whole tensor) and NVFP4's
 * values written without it: e s_b (the MX formats: the dequantized value, as always). Draws
 * and errors as srl_mx_quantize (rng advances by n when m is stochastic). */
int srl__mx_quantize_row(double *y, const double *x, size_t n, double ts, const srl_mx_format *f,
                         srl_mx_rule r, srl_rounding m, srl_rng *rng) SRL_WUR;

#endif
