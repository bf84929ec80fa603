// expect: FALSE
// Loops: a countdown whose trip count is the input; the bug is after the
// loop and needs an input of at least 40.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  unsigned n = __VERIFIER_nondet_uint();
  if (n > 64) return 0;
  unsigned steps = 0;
  while (n > 0) {
    n--;
    steps++;
  }
  if (steps >= 40) {
    reach_error();
    abort();
  }
  return 0;
}
