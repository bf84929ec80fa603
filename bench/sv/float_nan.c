// expect: FALSE
// Floats: NaN is the one value not equal to itself.
extern double __VERIFIER_nondet_double(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  double d = __VERIFIER_nondet_double();
  if (d != d) {
    reach_error();
    abort();
  }
  return 0;
}
