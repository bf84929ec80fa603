// expect: TRUE
// A ring buffer whose head starts at an input-chosen slot: pushes and pops
// at symbolic indices keep the values in order.
#include "braid.h"
#define CAP 32
int buf[CAP];
int main(void) {
  unsigned head = __VERIFIER_nondet_uint() % CAP, tail = head;
  for (int k = 0; k < 4; k++) {
    buf[tail] = k * 10;
    tail = (tail + 1) % CAP;
  }
  for (int k = 0; k < 4; k++) {
    if (buf[head] != k * 10) reach_error();
    head = (head + 1) % CAP;
  }
  return 0;
}
