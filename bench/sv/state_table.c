// expect: FALSE
// A table-driven automaton (state x character class -> state) accepting
// "a b* c": the accepting input is found through two table reads a step.
#include "braid.h"
enum { OTHER, A, B, C };
static const unsigned char next[4][4] = {
    /* 0 */ {3, 1, 3, 3},
    /* 1 */ {3, 3, 1, 2},
    /* 2 */ {3, 3, 3, 3},
    /* 3 */ {3, 3, 3, 3},
};
static unsigned char class_of[256];
int main(void) {
  class_of['a'] = A;
  class_of['b'] = B;
  class_of['c'] = C;
  unsigned state = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char ch = __VERIFIER_nondet_uchar();
    state = next[state][class_of[ch]];
  }
  if (state == 2) reach_error();
  return 0;
}
