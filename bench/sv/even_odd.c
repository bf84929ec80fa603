// expect: TRUE
// Recursion: mutually recursive even/odd never agree.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
int main(void) {
  unsigned n = __VERIFIER_nondet_uint();
  if (n > 30) return 0;
  if (is_even(n) == is_odd(n)) {
    reach_error();
    abort();
  }
  return 0;
}
