// expect: FALSE
// Today's SV-COMP preamble: reach_error() calls __assert_fail. The call to
// reach_error is the violation (not the assertion failure inside it).
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *)
    __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
void reach_error() { __assert_fail("0", "reach_error_assert_fail.c", 3, "reach_error"); }
extern unsigned short __VERIFIER_nondet_ushort(void);
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
  unsigned short x = __VERIFIER_nondet_ushort();
  unsigned short y = __VERIFIER_nondet_ushort();
  __VERIFIER_assert((unsigned)x * y != 1001u * 7u);
  return 0;
}
