// expect: TRUE
// Loops: Euclid's algorithm by subtraction on inputs below 16; the result
// divides both.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
void __VERIFIER_assert(int cond) {
  if (!cond) {
    reach_error();
    abort();
  }
}
int main(void) {
  unsigned a = __VERIFIER_nondet_uint();
  unsigned b = __VERIFIER_nondet_uint();
  if (a == 0 || b == 0 || a > 15 || b > 15) return 0;
  unsigned x = a, y = b;
  while (x != y) {
    if (x > y) x -= y;
    else y -= x;
  }
  __VERIFIER_assert(a % x == 0 && b % x == 0);
  return 0;
}
