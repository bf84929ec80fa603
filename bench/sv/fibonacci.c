// expect: FALSE
// Recursion: Fibonacci, the tenth number is 55.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) {
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 12) return 0;
  if (fib(n) == 55) {
    reach_error();
    abort();
  }
  return 0;
}
