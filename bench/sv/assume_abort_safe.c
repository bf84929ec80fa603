// expect: TRUE
// Today's SV-COMP preamble with assume_abort_if_not: abort() inside it
// ends the path, and the assertion holds on the paths that remain.
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *)
    __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
void reach_error() { __assert_fail("0", "assume_abort_safe.c", 3, "reach_error"); }
extern int __VERIFIER_nondet_int(void);
void assume_abort_if_not(int cond) {
  if (!cond) {
    abort();
  }
}
void __VERIFIER_assert(int cond) {
  if (!(cond)) {
  ERROR: {
    reach_error();
    abort();
  }
  }
  return;
}
int main() {
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  assume_abort_if_not(a >= 0 && a <= 1000);
  assume_abort_if_not(b >= 0 && b <= 1000);
  int q = a / (b + 1);
  __VERIFIER_assert(q <= a);
  return 0;
}
