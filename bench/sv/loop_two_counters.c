// expect: TRUE
// Loops: two counters moving in step (an invariant j == 2 * i).
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  unsigned n = __VERIFIER_nondet_uint();
  if (n > 50) return 0;
  unsigned i = 0, j = 0;
  while (i < n) {
    i++;
    j += 2;
  }
  if (j != 2 * n) {
    reach_error();
    abort();
  }
  return 0;
}
