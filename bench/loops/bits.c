// expect: TRUE
// A set of four bits filled one nondeterministic bit at a time and
// cleared when full: sixteen states, never beyond 15.
#include "braid.h"
int main(void) {
  unsigned state = 0;
  while (__VERIFIER_nondet_int()) {
    state |= 1u << (__VERIFIER_nondet_uint() & 3);
    if (state == 15) state = 0;
  }
  if (state > 15) reach_error();
  return 0;
}
