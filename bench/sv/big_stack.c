// expect: TRUE
// An array of 100 000 ints on the stack overflows wasm-ld's default 64 KiB
// stack (braid links C with 8 MiB): such a trap would exist only in the
// compiled module, and may not become a verdict (FALSE, or TRUE over a
// path that ended early). A symbolic index over its 400 000 cells is past
// array terms over cells; the words are a progression (a[i] = i).
#include "braid.h"
int main(void) {
  int a[100000];
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 100000);
  for (int i = 0; i < 100000; i++) a[i] = i;
  if (a[k] != (int)k) reach_error();
  return 0;
}
