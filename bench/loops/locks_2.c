// expect: TRUE
// A lock protocol over 2 flags (written by bench/loops/gen_locks.sh).
#include "braid.h"
int main(void) {
  int p1 = __VERIFIER_nondet_int();
  int lk1 = 0;
  int p2 = __VERIFIER_nondet_int();
  int lk2 = 0;
  while (1) {
    if (__VERIFIER_nondet_int() == 0) break;
    lk1 = 0;
    lk2 = 0;
    if (p1 != 0) lk1 = 1;
    if (p2 != 0) lk2 = 1;
    if (p1) { if (lk1 != 1) reach_error(); lk1 = 0; }
    if (p2) { if (lk2 != 1) reach_error(); lk2 = 0; }
  }
  return 0;
}
