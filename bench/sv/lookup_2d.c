// expect: FALSE
// A 16 x 16 table indexed by two inputs: one symbolic offset over 1 024
// cells computed from both.
#include "braid.h"
int t[16][16];
int main(void) {
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) t[i][j] = i * 16 + j;
  unsigned i = __VERIFIER_nondet_uint(), j = __VERIFIER_nondet_uint();
  __VERIFIER_assume(i < 16 && j < 16);
  if (t[i][j] == 0xa7) reach_error();
  return 0;
}
