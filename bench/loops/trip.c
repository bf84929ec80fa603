// expect: FALSE
// A loop whose trip count is an input, and a bug after it at one count.
#include "braid.h"
int main(void) {
  int n = __VERIFIER_nondet_int();
  int i = 0, sum = 0;
  while (i < n) {
    sum += 3;
    i++;
  }
  if (sum == 60) reach_error();
  return 0;
}
