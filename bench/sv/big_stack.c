// expect: TRUE
// An array of 100 000 ints on the stack overflows wasm-ld's 64 KiB stack:
// the trap exists only in the compiled module. It must not become a
// verdict (FALSE, or TRUE over a path that ended early).
#include "braid.h"
int main(void) {
  int a[100000];
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 100000);
  for (int i = 0; i < 100000; i++) a[i] = i;
  if (a[k] != (int)k) reach_error();
  return 0;
}
