// expect: TRUE
// A flag toggled a nondeterministic number of times stays 0 or 1.
#include "braid.h"
int main(void) {
  int x = 0;
  while (__VERIFIER_nondet_int()) {
    x = 1 - x;
  }
  if (x != 0 && x != 1) reach_error();
  return 0;
}
