// braid-args:
// SV-COMP conventions as the benchmarks write them: the program defines
// reach_error() (empty, an abort() after each call) and
// assume_abort_if_not(); only the call to reach_error() is a bug, and
// abort() ends a path silently.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
void assume_abort_if_not(int cond) {
  if (!cond) abort();
}

int main(void) {
  int x = __VERIFIER_nondet_int();
  assume_abort_if_not(x > 10 && x < 100);
  if (x * 2 == 64) {
    reach_error();
    abort();
  }
  return 0;
}
