// expect: FALSE
// A symbolic index into a global array of 1 000 ints: the offset spans
// 4 000 cells, read through an array term rather than concretised.
#include "braid.h"
int a[1000];
int main(void) {
  for (int i = 0; i < 1000; i++) a[i] = 3 * i;
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 1000);
  if (a[k] == 2997) reach_error();
  return 0;
}
