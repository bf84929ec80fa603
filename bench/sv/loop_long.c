// expect: TRUE
// A long concrete counting loop (SV-COMP's loop-acceleration style): it
// ends with x even, so the error is unreachable. Whether an engine gets
// through 2^27 iterations in the time limit is a speed question.
#include "braid.h"
int main(void) {
  unsigned x = 0;
  while (x < 0x0fffffffu) x += 2;
  if (x % 2) reach_error();
  return 0;
}
