/* src/theory/grid.h: grid facts the statements of src/theory/ share (private to the library).
 *
 *   srl__theory_in_range  x is finite with |x| <= xmax (it has both grid neighbours)
 *   srl__theory_gap_below the spacing below a positive value of the format (half the spacing at
 *                         it for a power of two above the subnormal range)
 *   srl__theory_is_even   a value of the format has last significand bit 0 (ties go there) */
#ifndef SRL_THEORY_GRID_H
#define SRL_THEORY_GRID_H

#include <stdbool.h>

#include "srlab/format.h"

bool srl__theory_in_range(double x, const srl_format *f);
double srl__theory_gap_below(double x, const srl_format *f);
bool srl__theory_is_even(double x, const srl_format *f);

#endif
