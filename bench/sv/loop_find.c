// expect: FALSE
// A search loop finds the only input that leads to the error.
#include "braid.h"
int main(void) {
  int key = __VERIFIER_nondet_int();
  int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int found = -1;
  for (int i = 0; i < 8; i++)
    if (table[i] == key) { found = i; break; }
  if (found == 5) reach_error();
  return 0;
}
