// expect: FALSE
// (Buggy: closing forgets the sent flag.) A connection protocol driven by nondeterministic events: data is only
// sent on an open connection, and a closed one is never reopened without a
// handshake.
#include "braid.h"
enum { CLOSED, SYN_SENT, OPEN, CLOSING };
int main(void) {
  int state = CLOSED, sent = 0;
  while (__VERIFIER_nondet_int()) {
    int ev = __VERIFIER_nondet_int();
    switch (state) {
    case CLOSED:
      if (ev == 1) state = SYN_SENT;
      break;
    case SYN_SENT:
      if (ev == 2) state = OPEN;
      else if (ev == 3) state = CLOSED;
      break;
    case OPEN:
      if (ev == 4) sent = 1;
      else if (ev == 3) state = CLOSING;
      break;
    case CLOSING:
      if (ev == 5) state = CLOSED; /* forgets to clear sent */
      break;
    }
    if (sent && state != OPEN && state != CLOSING) reach_error();
  }
  return 0;
}
