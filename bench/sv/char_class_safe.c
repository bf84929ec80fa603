// expect: TRUE
// A ctype-style table of class bits: no character is both a digit and a
// letter, a proof over the 128 entries an input character may select.
#include "braid.h"
#define DIGIT 1
#define ALPHA 2
#define SPACE 4
static unsigned char cls[128];
int main(void) {
  for (int c = '0'; c <= '9'; c++) cls[c] |= DIGIT;
  for (int c = 'a'; c <= 'z'; c++) cls[c] |= ALPHA;
  for (int c = 'A'; c <= 'Z'; c++) cls[c] |= ALPHA;
  cls[' '] |= SPACE;
  cls['\t'] |= SPACE;
  unsigned char c = __VERIFIER_nondet_uchar();
  __VERIFIER_assume(c < 128);
  if ((cls[c] & DIGIT) && (cls[c] & ALPHA)) reach_error();
  return cls[c];
}
