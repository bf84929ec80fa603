// expect: TRUE
// As defined_reach_error.c, but the assertion holds.
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
  if (a > 0 && a < 1000) __VERIFIER_assert(a * 2 > a);
  return 0;
}
