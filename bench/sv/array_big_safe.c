// expect: TRUE
// The same array, and no index finds a value its formula does not give:
// a proof over every one of the 1 000 cells.
#include "braid.h"
int a[1000];
int main(void) {
  for (int i = 0; i < 1000; i++) a[i] = 3 * i;
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 1000);
  if (a[k] % 3 != 0) reach_error();
  return 0;
}
