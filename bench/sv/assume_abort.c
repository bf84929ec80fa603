// expect: TRUE
// assume_abort_if_not as SV-COMP programs define it: abort() ends the
// path, it is not a bug.
#include "braid.h"
extern void abort(void);
void assume_abort_if_not(int cond) {
  if (!cond) abort();
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  assume_abort_if_not(x >= 0 && x < 100);
  int y = x + 1;
  if (y <= 0 || y > 100) reach_error();
  return 0;
}
