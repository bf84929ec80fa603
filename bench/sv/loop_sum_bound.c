// expect: TRUE
// Loops: a trip count chosen by the input (at most 20); the sum of the
// first n numbers stays within its closed form.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
void __VERIFIER_assert(int cond) {
  if (!cond) {
    reach_error();
    abort();
  }
}
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 20) return 0;
  int sum = 0;
  for (int i = 0; i < n; i++) sum += i;
  __VERIFIER_assert(2 * sum == n * (n - 1));
  return 0;
}
