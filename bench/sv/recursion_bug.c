// expect: FALSE
// Recursion: a factorial that wraps around in 16 bits (9! is 35200 there).
#include "braid.h"
static unsigned short fact(unsigned short n) { return n <= 1 ? 1 : (unsigned short)(n * fact(n - 1)); }
int main(void) {
  unsigned short n = __VERIFIER_nondet_ushort();
  __VERIFIER_assume(n < 10);
  if (fact(n) == 35200) reach_error();
  return 0;
}
