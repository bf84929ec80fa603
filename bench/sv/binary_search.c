// expect: TRUE
// Binary search over a sorted array of 32 finds every key it holds, at its
// index.
#include "braid.h"
int a[32];
int main(void) {
  for (int i = 0; i < 32; i++) a[i] = 2 * i;
  unsigned k = __VERIFIER_nondet_uint();
  __VERIFIER_assume(k < 32);
  int key = 2 * (int)k, lo = 0, hi = 31, found = -1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (a[mid] == key) { found = mid; break; }
    if (a[mid] < key) lo = mid + 1; else hi = mid - 1;
  }
  if (found != (int)k) reach_error();
  return 0;
}
