// expect: TRUE
// Swaps at input-chosen indices keep an array a permutation: its sum does
// not change. Stores and loads at symbolic offsets, one after another.
#include "braid.h"
int p[8];
int main(void) {
  for (int i = 0; i < 8; i++) p[i] = i;
  for (int s = 0; s < 2; s++) {
    unsigned i = __VERIFIER_nondet_uint() % 8, j = __VERIFIER_nondet_uint() % 8;
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
  int sum = 0;
  for (int i = 0; i < 8; i++) sum += p[i];
  if (sum != 28) reach_error();
  return 0;
}
