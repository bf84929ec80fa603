// expect: FALSE
// 64-bit arithmetic: a product of two nondet 32-bit values that reaches a
// given 64-bit constant (found by factoring, which the solver must do).
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  unsigned long long a = __VERIFIER_nondet_uint();
  unsigned long long b = __VERIFIER_nondet_uint();
  if (a > 1 && b > 1 && a * b == 600851475143ULL) {
    reach_error();
    abort();
  }
  return 0;
}
