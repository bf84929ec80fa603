// expect: FALSE
// A store at an input-chosen index of a 500-byte buffer, then a read at a
// fixed one: the store reaches every cell it may.
#include "braid.h"
char buf[500];
int main(void) {
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 500);
  buf[k] = 'x';
  if (buf[250] == 'x') reach_error();
  return 0;
}
