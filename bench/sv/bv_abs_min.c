// expect: FALSE
// Bit-vectors: the absolute value of INT_MIN is negative in two's
// complement (the machine wraps; SV-COMP's unreach-call follows the machine).
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = x < 0 ? -x : x;
  if (y < 0) {
    reach_error();
    abort();
  }
  return 0;
}
