// expect: TRUE
// Bit-vectors: a masked shift never sets the high bit.
#include "braid.h"
int main(void) {
  unsigned char c = __VERIFIER_nondet_uchar();
  unsigned v = ((unsigned)c << 3) & 0x7f8u;
  if (v & 0x80000000u) reach_error();
  return 0;
}
