/* src/cli/theory_table.h: the statements of `srlab theory` as tables (src/cli/theory_t01_t04.c,
 * theory_t05_t08.c, theory_t09_t13.c, theory_t15_t17.c: one th_statement each), and what the
 * command (src/cli/cmd_theory.c) offers their rows.
 *
 * A statement is: its id, slug, file and title; its keys (name, default, help, kind, the field
 * of th_params the value goes to); an evaluation (validate the parameters, call the library's
 * srl_tNN_eval into th_values); its lines; and the commands that test it. A line is: a name, a
 * value (a field of th_values), a formula and a meaning whose "%s" are filled, in order, from the
 * line's arguments, and optionally a condition. Adding a theory value is one line row. */
#ifndef SRL_CLI_THEORY_TABLE_H
#define SRL_CLI_THEORY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "srlab/theory.h"

#define TH_MAX_KEYS 10
#define TH_MAX_ARGS 4

extern const char *const th_cmd; /* "theory", for messages */

/* The parameters of every statement, by key (a statement uses some of them). */
typedef struct th_params {
    srl_format format, grad_format;
    srl_rounding rounding;
    srl_accum accum; /* the order (from srl_accum_binary64) */
    srl_arith arith;
    int opt; /* an index into srl_optim_names */
    double x, y, v, a, xstar, x0, lr, sigma, g, distance, wd, beta1, beta2, delta, update, lambda;
    double heat_r, t_end; /* T15: dt / h^2 and the final time */
    uint64_t n, m, nmax, steps, params;
    long long r;
    const char *text[TH_MAX_KEYS]; /* each key's text, given or default, in key order */
} th_params;

/* The library's predictions, one member per statement. */
typedef union th_values {
    srl_t01_values t01;
    srl_t02_values t02;
    srl_t03_values t03;
    srl_t04_values t04;
    srl_t05_values t05;
    srl_t06_values t06;
    srl_t07_values t07;
    srl_t08_values t08;
    srl_t09_values t09;
    srl_t10_values t10;
    srl_t11_values t11;
    srl_t12_values t12;
    srl_t14_values t14;
    srl_t15_values t15;
    srl_t16_values t16;
    srl_t17_values t17;
} th_values;

typedef struct th_statement th_statement;

/* What a statement's evaluation, conditions and commands see. */
typedef struct th_view {
    const th_statement *s;
    const th_params *p;
    const th_values *v;
} th_view;

typedef enum th_key_kind {
    TH_REAL = 0,  /* any finite number */
    TH_POS,       /* > 0 */
    TH_NONNEG,    /* >= 0 */
    TH_IN_RANGE,  /* |x| <= the largest finite value of the key "format" (parsed before it) */
    TH_FORMAT,    /* srl_format */
    TH_ROUNDING,  /* srl_rounding */
    TH_ORDER,     /* srl_accum: recursive, pairwise, blocked:K */
    TH_COUNT,     /* uint64_t in [min, max] */
    TH_INT,       /* long long in [min, max] */
    TH_ARITH,     /* srl_arith: fp32 or fp64 */
    TH_OPTIMIZER  /* int: an index into srl_optim_names */
} th_key_kind;

typedef struct th_key {
    const char *key, *def, *help;
    th_key_kind kind;
    size_t field; /* offsetof(th_params, ...) */
    uint64_t min, max;
} th_key;

typedef enum th_arg_kind {
    TH_NONE = 0,
    TH_NUM,          /* a double of th_values, shortest round-trip decimal */
    TH_COUNT_NUM,    /* a uint64_t of th_values, printed as TH_NUM prints it */
    TH_G,            /* a double of th_values, %g */
    TH_U64,          /* a uint64_t of th_values, %llu */
    TH_PICK,         /* a bool of th_values: text when true, alt when false */
    TH_MODE,         /* an srl_rounding of th_values, its name */
    TH_MESSAGE,      /* an srl_err of th_values, its message */
    TH_LITERAL,      /* text */
    TH_PARAM_U64,    /* a uint64_t of th_params, %llu */
    TH_PARAM_INT,    /* a long long of th_params, %lld */
    TH_PARAM_FORMAT, /* an srl_format of th_params, its name */
    TH_PARAM_MODE,   /* an srl_rounding of th_params, its name */
    TH_PARAM_TEXT    /* the text of the key named text, as given */
} th_arg_kind;

typedef struct th_arg {
    th_arg_kind kind;
    size_t field; /* offsetof(th_values, ...) or offsetof(th_params, ...) */
    const char *text, *alt;
} th_arg;

typedef struct th_line {
    const char *name;
    th_arg value;
    const char *formula, *meaning; /* meaning NULL or "": no second line */
    th_arg args[TH_MAX_ARGS];      /* the "%s" of formula, then of meaning */
    bool (*when)(const th_view *t); /* NULL: always printed */
} th_line;

struct th_statement {
    const char *id, *slug, *file, *title;
    th_key keys[TH_MAX_KEYS];
    /* Validate the parameters and call the library: 0, or an exit status after a message. */
    int (*eval)(th_values *v, const th_view *t);
    const th_line *lines; /* ended by a row with a NULL name */
    void (*commands)(FILE *o, const th_view *t);
};

/* The statements, listed in order by src/cli/cmd_theory.c. */
extern const th_statement th_t01, th_t02, th_t03, th_t04, th_t05, th_t06, th_t07, th_t08, th_t09,
    th_t10, th_t11, th_t12, th_t13;
extern const th_statement th_t14;
/* src/cli/theory_t15_t17.c: statements from the literature */
extern const th_statement th_t15, th_t16, th_t17;

/* The text of key `key` of t's statement (given or default). */
const char *th_text(const th_view *t, const char *key);

/* ---- shorthands for the rows ---- */

#define PF(field) offsetof(th_params, field)
#define VF(field) offsetof(th_values, field)
/* keys: name, default, kind, field, help; counts with their bounds */
#define KEY(key, def, kind, field, help) {key, def, help, kind, PF(field), 0, 0}
#define KEY_COUNT(key, def, field, lo, hi, help) {key, def, help, TH_COUNT, PF(field), lo, hi}
#define KEY_END {NULL, NULL, NULL, TH_REAL, 0, 0, 0}
#define UPTO_1E12 UINT64_C(1000000000000)
/* values and arguments */
#define NUM(field) {TH_NUM, VF(field), NULL, NULL}
#define COUNT_NUM(field) {TH_COUNT_NUM, VF(field), NULL, NULL}
#define G(field) {TH_G, VF(field), NULL, NULL}
#define U64(field) {TH_U64, VF(field), NULL, NULL}
#define PICK(field, yes, no) {TH_PICK, VF(field), yes, no}
#define MODE(field) {TH_MODE, VF(field), NULL, NULL}
#define MESSAGE(field) {TH_MESSAGE, VF(field), NULL, NULL}
#define LITERAL(text) {TH_LITERAL, 0, text, NULL}
#define PARAM_U64(field) {TH_PARAM_U64, PF(field), NULL, NULL}
#define PARAM_INT(field) {TH_PARAM_INT, PF(field), NULL, NULL}
#define PARAM_FORMAT(field) {TH_PARAM_FORMAT, PF(field), NULL, NULL}
#define PARAM_MODE(field) {TH_PARAM_MODE, PF(field), NULL, NULL}
#define PARAM_TEXT(key) {TH_PARAM_TEXT, 0, key, NULL}
/* lines: the arguments of a line without "%s", and a line printed always */
#define NO_ARGS {{TH_NONE, 0, NULL, NULL}}
#define ALWAYS NULL
/* a line always printed, without "%s" */
#define LINE(name, value, formula, meaning) {name, value, formula, meaning, NO_ARGS, ALWAYS}
#define LINES_END {NULL, {TH_NONE, 0, NULL, NULL}, NULL, NULL, NO_ARGS, ALWAYS}

#endif
