// expect: FALSE
// The program defines reach_error() with an empty body and aborts after
// the call: the call is the violation.
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
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (a > 0 && b > 0) __VERIFIER_assert(a + b != 12);
  return 0;
}
