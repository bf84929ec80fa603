// braid-args:
// Integer division by zero traps.
extern int __VERIFIER_nondet_int(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  if (x > 5) return 100 / (y - x);
  return 0;
}
