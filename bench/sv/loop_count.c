// expect: TRUE
// A bounded loop over a nondet bound: the counter equals the bound.
#include "braid.h"
int main(void) {
  unsigned char n = __VERIFIER_nondet_uchar();
  __VERIFIER_assume(n < 12);
  unsigned i = 0, sum = 0;
  while (i < n) {
    sum += 2;
    i++;
  }
  if (sum != 2u * n) reach_error();
  return 0;
}
