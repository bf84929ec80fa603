// expect: FALSE
// A table of function pointers indexed by input (an indirect call through a
// symbolic table slot): one handler reaches the error.
#include "braid.h"
static int h0(int x) { return x; }
static int h1(int x) { return x + 1; }
static int h2(int x) { if (x == 41) reach_error(); return x * 2; }
static int h3(int x) { return -x; }
static int (*const handlers[4])(int) = {h0, h1, h2, h3};
int main(void) {
  unsigned op = __VERIFIER_nondet_uint();
  int x = __VERIFIER_nondet_int();
  if (op >= 4) return 0;
  return handlers[op](x);
}
