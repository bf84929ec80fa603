// expect: FALSE
// Floats: the float just above 1.0 (1 + 2^-23) lies below 1.0000002.
extern float __VERIFIER_nondet_float(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  float f = __VERIFIER_nondet_float();
  if (f > 1.0f && f < 1.0000002f) {
    reach_error();
    abort();
  }
  return 0;
}
