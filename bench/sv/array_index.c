// expect: FALSE
// A symbolic index into an array written with a pattern.
#include "braid.h"
int main(void) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i * i;
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 16);
  if (a[k] == 121) reach_error();
  return 0;
}
