// expect: TRUE
// Recursion: McCarthy's 91 function on a small nondet range.
#include "braid.h"
static int f91(int n) { return n > 100 ? n - 10 : f91(f91(n + 11)); }
int main(void) {
  int x = __VERIFIER_nondet_int();
  __VERIFIER_assume(x >= 95 && x <= 101);
  int r = f91(x);
  if (r != 91) reach_error();
  return 0;
}
