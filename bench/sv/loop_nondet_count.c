// expect: FALSE
// Loops: a loop that goes round while the environment says so; the error
// needs exactly ten rounds.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  int count = 0;
  while (__VERIFIER_nondet_int()) {
    count++;
    if (count > 12) return 0;
  }
  if (count == 10) {
    reach_error();
    abort();
  }
  return 0;
}
