// expect: TRUE
// Insertion sort of four nondet values leaves them in order.
#include "braid.h"
int main(void) {
  int a[4];
  for (int i = 0; i < 4; i++) a[i] = __VERIFIER_nondet_char();
  for (int i = 1; i < 4; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }
    a[j + 1] = v;
  }
  for (int i = 1; i < 4; i++)
    if (a[i - 1] > a[i]) reach_error();
  return 0;
}
