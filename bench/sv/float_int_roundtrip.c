// expect: TRUE
// Floats: every int in [-1000, 1000] survives a trip through double.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  int i = __VERIFIER_nondet_int();
  if (i < -1000 || i > 1000) return 0;
  double d = i;
  if ((int)d != i) {
    reach_error();
    abort();
  }
  return 0;
}
