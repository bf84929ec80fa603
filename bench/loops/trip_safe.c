// expect: TRUE
// A counter up to an input: every state is new, so loop merging cannot
// reach a fixed point and falls back to unrolling (and says so).
#include "braid.h"
int main(void) {
  unsigned n = __VERIFIER_nondet_ushort();
  unsigned i = 0;
  while (i < n) i++;
  if (i > 65535) reach_error();
  return 0;
}
