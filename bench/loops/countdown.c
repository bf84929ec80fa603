// expect: TRUE
// Seed 003's do-while: the counter goes down to zero or below, however
// large it starts. The state after one iteration is one the loop started in.
#include "braid.h"
int main(void) {
  int i = __VERIFIER_nondet_int();
  do {
    i--;
  } while (i > 0);
  if (i > 0) reach_error();
  return 0;
}
