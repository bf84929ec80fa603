// expect: TRUE
// A lock protocol over 6 flags (written by bench/loops/gen_locks.sh).
#include "braid.h"
int main(void) {
  int p1 = __VERIFIER_nondet_int();
  int lk1 = 0;
  int p2 = __VERIFIER_nondet_int();
  int lk2 = 0;
  int p3 = __VERIFIER_nondet_int();
  int lk3 = 0;
  int p4 = __VERIFIER_nondet_int();
  int lk4 = 0;
  int p5 = __VERIFIER_nondet_int();
  int lk5 = 0;
  int p6 = __VERIFIER_nondet_int();
  int lk6 = 0;
  while (1) {
    if (__VERIFIER_nondet_int() == 0) break;
    lk1 = 0;
    lk2 = 0;
    lk3 = 0;
    lk4 = 0;
    lk5 = 0;
    lk6 = 0;
    if (p1 != 0) lk1 = 1;
    if (p2 != 0) lk2 = 1;
    if (p3 != 0) lk3 = 1;
    if (p4 != 0) lk4 = 1;
    if (p5 != 0) lk5 = 1;
    if (p6 != 0) lk6 = 1;
    if (p1) { if (lk1 != 1) reach_error(); lk1 = 0; }
    if (p2) { if (lk2 != 1) reach_error(); lk2 = 0; }
    if (p3) { if (lk3 != 1) reach_error(); lk3 = 0; }
    if (p4) { if (lk4 != 1) reach_error(); lk4 = 0; }
    if (p5) { if (lk5 != 1) reach_error(); lk5 = 0; }
    if (p6) { if (lk6 != 1) reach_error(); lk6 = 0; }
  }
  return 0;
}
