// expect: FALSE
// Three flags rotate; the error needs a particular phase after the loop.
#include "braid.h"
int main(void) {
  int a = 1, b = 0, c = 0;
  while (__VERIFIER_nondet_int()) {
    int t = a;
    a = c;
    c = b;
    b = t;
  }
  if (c == 1 && __VERIFIER_nondet_int() == 7) reach_error();
  return 0;
}
