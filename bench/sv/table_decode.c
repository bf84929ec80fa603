// expect: FALSE
// A decoder's 256-entry table indexed by input characters.
#include "braid.h"
static const unsigned char val[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};
int main(void) {
  int n = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char c = __VERIFIER_nondet_uchar();
    if (!val[c]) return 0;
    n = n * 16 + val[c] - 1;
  }
  if (n == 0xbeef) reach_error();
  return 0;
}
