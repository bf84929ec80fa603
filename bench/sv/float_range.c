// expect: TRUE
// Floats: a clamped value stays in its range.
#include "braid.h"
int main(void) {
  double x = __VERIFIER_nondet_double();
  __VERIFIER_assume(x >= -10.0 && x <= 10.0);
  double y = x < 0.0 ? -x : x;
  if (y > 10.0) reach_error();
  return 0;
}
