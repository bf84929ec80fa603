// expect: TRUE
// exit() ends the path: the code after it (and the unreachable the
// compiler puts after the call) is never reached.
#include "braid.h"
extern void exit(int);
int main(void) {
  int x = __VERIFIER_nondet_int();
  if (x != 5) exit(0);
  if (x != 5) reach_error();
  return 0;
}
