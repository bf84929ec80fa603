// expect: FALSE
// As bits.c, but 11 (three bits, a particular three) is an error.
#include "braid.h"
int main(void) {
  unsigned state = 0;
  while (__VERIFIER_nondet_int()) {
    state |= 1u << (__VERIFIER_nondet_uint() & 3);
    if (state == 15) state = 0;
    if (state == 11) reach_error();
  }
  return 0;
}
