// braid-args:
// SV-COMP / Test-Comp convention: nondet values, assume, reach_error.
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern void __VERIFIER_assume(int);
extern void reach_error(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  unsigned char c = __VERIFIER_nondet_uchar();
  __VERIFIER_assume(x > 0 && x < 1000);
  if (c == 'Z' && x * 3 == 2013) reach_error();
  return 0;
}
