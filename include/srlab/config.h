/* srlab/config.h: configs, the values that describe a run (docs/design.md §1): an ordered set
 * of key=value text pairs (exactly the command-line flags without their dashes: problem=quad1d,
 * lr=0.01, seed=3, ...), with typed reads whose error messages name the key and the value. */
#ifndef SRLAB_CONFIG_H
#define SRLAB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "srlab/common.h"
#include "srlab/format.h"
#include "srlab/mode.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configs ---- */
typedef struct srl_config srl_config;

srl_config *srl_config_new(void);
void srl_config_free(srl_config *c);                /* NULL-safe */
srl_config *srl_config_dup(const srl_config *c);    /* NULL on allocation failure */
/* Set key (replacing its value, keeping its position; new keys go last). */
int srl_config_set(srl_config *c, const char *key, const char *value) SRL_WUR;
int srl_config_unset(srl_config *c, const char *key); /* SRL_OK even if absent */
const char *srl_config_get(const srl_config *c, const char *key); /* NULL if absent */
size_t srl_config_size(const srl_config *c);
const char *srl_config_key(const srl_config *c, size_t i);
const char *srl_config_value(const srl_config *c, size_t i);

/* Typed reads of a present key, or of `def` (text) when the key is absent. Errors name the key
 * and the value: "lr: 'abc' is not a number". Finite checks are the caller's business. */
int srl_config_double(const srl_config *c, const char *key, const char *def, double *out,
                      srl_err *err) SRL_WUR;
int srl_config_long(const srl_config *c, const char *key, const char *def, long *out,
                    srl_err *err) SRL_WUR;
int srl_config_u64(const srl_config *c, const char *key, const char *def, uint64_t *out,
                   srl_err *err) SRL_WUR;
int srl_config_bool(const srl_config *c, const char *key, const char *def, bool *out,
                    srl_err *err) SRL_WUR; /* on/off, true/false, 1/0, yes/no */
int srl_config_format(const srl_config *c, const char *key, const char *def, srl_format *out,
                      srl_err *err) SRL_WUR;
int srl_config_rounding(const srl_config *c, const char *key, const char *def,
                        srl_rounding *out, srl_err *err) SRL_WUR;
/* A string among `choices` (NULL-terminated); *out is its index. */
int srl_config_choice(const srl_config *c, const char *key, const char *def,
                      const char *const *choices, int *out, srl_err *err) SRL_WUR;

/* ---- one name per value ----
 * A key named `format` or ending in `-format` holds a format (srl_format_parse), and a key named
 * `rounding` or ending in `-rounding` a rounding mode (srl_rounding_parse): every runner names
 * its keys so. Their values are spelled many ways ("bfloat16", "BF16", "p=8,emax=127" are one
 * format; "stochastic" is "sr"); the canonical value is the one name (srl_format's name,
 * srl_rounding_name), which outputs show and grids compare. Any other key, and a value that does
 * not parse (the run refuses it with its own message; "none" for master-format), keep the text
 * as given. Returns buf (len bytes) holding the canonical value, or value itself. */
const char *srl_config_canonical(char *buf, size_t len, const char *key, const char *value);
/* Whether key holds a format or a rounding mode by the rule above. */
bool srl_config_is_format_key(const char *key);
bool srl_config_is_rounding_key(const char *key);

#ifdef __cplusplus
}
#endif
#endif
