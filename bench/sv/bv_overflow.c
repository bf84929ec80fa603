// expect: FALSE
// Bit-vectors: unsigned wrap-around reaches the error for one input.
#include "braid.h"
int main(void) {
  unsigned x = __VERIFIER_nondet_uint();
  unsigned y = x * 3u + 7u;
  if (y == 1u) reach_error();
  return 0;
}
