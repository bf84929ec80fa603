// expect: TRUE
// A counter modulo 5 stepped by a nondeterministic bit: five states.
#include "braid.h"
int main(void) {
  int c = 0;
  while (__VERIFIER_nondet_int()) {
    c = (c + (__VERIFIER_nondet_int() & 1)) % 5;
    if (c < 0 || c >= 5) reach_error();
  }
  return 0;
}
