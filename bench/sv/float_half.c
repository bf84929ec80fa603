// expect: TRUE
// Floats: halving a finite positive double keeps it below itself.
extern double __VERIFIER_nondet_double(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  double x = __VERIFIER_nondet_double();
  if (!(x > 0.0 && x < 1e300)) return 0;
  double h = x / 2.0;
  if (h >= x) {
    reach_error();
    abort();
  }
  return 0;
}
