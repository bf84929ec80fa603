// expect: TRUE
// The C library (wasi-libc's strlen, memset) on nondet characters: a
// terminated buffer's length is below its size.
#include <string.h>
extern char __VERIFIER_nondet_char(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  char buf[8];
  memset(buf, 0, sizeof buf);
  for (int i = 0; i < 6; i++) buf[i] = __VERIFIER_nondet_char();
  if (strlen(buf) > 6) {
    reach_error();
    abort();
  }
  return 0;
}
