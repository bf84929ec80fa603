/* braid.h: the harness API braid implements, in each convention's own
 * spelling. `braid run prog.c` puts this header on the include path.
 * Symbolic values are inputs named after the function (KLEE's
 * klee_make_symbolic: after its name argument). */
#ifndef BRAID_H
#define BRAID_H

#ifdef __cplusplus
extern "C" {
#endif

/* KLEE */
void klee_make_symbolic(void *addr, unsigned long size, const char *name);
void klee_assume(unsigned long condition);
int klee_int(const char *name);
int klee_range(int lo, int hi, const char *name);
void klee_abort(void);
void klee_report_error(const char *file, int line, const char *message, const char *suffix);
void klee_silent_exit(int status);
int klee_get_value_i32(int value);
long long klee_get_value_i64(long long value);
/* These only print or hint: braid runs them as no-ops. */
void klee_warning(const char *message);
void klee_warning_once(const char *message);
void klee_print_expr(const char *message, ...);
void klee_prefer_cex(void *object, unsigned long condition);
void klee_open_merge(void);
void klee_close_merge(void);

/* SV-COMP / Test-Comp: reach_error() is the property. */
void reach_error(void);
void __VERIFIER_error(void); /* the property before 2020 */
void __VERIFIER_assume(int condition);
#ifdef __cplusplus
bool __VERIFIER_nondet_bool(void);
#else
_Bool __VERIFIER_nondet_bool(void);
#endif
char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
long __VERIFIER_nondet_long(void);
unsigned long __VERIFIER_nondet_ulong(void);
long long __VERIFIER_nondet_longlong(void);
unsigned long long __VERIFIER_nondet_ulonglong(void);
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);
void *__VERIFIER_nondet_pointer(void);
unsigned long __VERIFIER_nondet_size_t(void);

/* Owi / WASP (`#include <owi.h>` includes this header) */
__attribute__((import_module("symbolic"), import_name("i8_symbol"))) char owi_i8(void);
__attribute__((import_module("symbolic"), import_name("char_symbol"))) char owi_char(void);
#ifdef __cplusplus
__attribute__((import_module("symbolic"), import_name("bool_symbol"))) bool owi_bool(void);
#else
__attribute__((import_module("symbolic"), import_name("bool_symbol"))) _Bool owi_bool(void);
#endif
__attribute__((import_module("symbolic"), import_name("i32_symbol"))) int owi_i32(void);
__attribute__((import_module("symbolic"), import_name("range_symbol"))) int owi_range(int lo, int hi);
__attribute__((import_module("symbolic"), import_name("i64_symbol"))) long long owi_i64(void);
__attribute__((import_module("symbolic"), import_name("f32_symbol"))) float owi_f32(void);
__attribute__((import_module("symbolic"), import_name("f64_symbol"))) double owi_f64(void);
__attribute__((import_module("symbolic"), import_name("assume"))) void owi_assume(int condition);
__attribute__((import_module("symbolic"), import_name("assert"))) void owi_assert(int condition);

/* KLEE's klee_assert is a macro over assert: a failing one is a bug. */
#ifndef klee_assert
#define klee_assert(expr) owi_assert(!!(expr))
#endif

#ifdef __cplusplus
}
#endif

#endif
