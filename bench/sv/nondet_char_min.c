// expect: FALSE
// The one char value whose negation does not fit: -128.
extern char __VERIFIER_nondet_char(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  char c = __VERIFIER_nondet_char();
  char d = -c;
  if (c < 0 && d < 0) {
    reach_error();
    abort();
  }
  return 0;
}
