// expect: FALSE
// A million ints on the stack (4 MB: past any stack but a native-sized
// one; braid links C with 8 MiB), filled by a loop, then read at an input
// index: the one input-chosen cell that breaks the pattern is the bug.
#include "braid.h"
int main(void) {
  int a[1000000];
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 1000000);
  for (int i = 0; i < 1000000; i++) a[i] = 3 * i + 1;
  a[777777] = 0;
  if (a[k] != 3 * (int)k + 1) reach_error();
  return 0;
}
