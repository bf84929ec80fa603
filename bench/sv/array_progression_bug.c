// expect: FALSE
// Arrays: 20 000 ints filled with 5 * i + 2, one slot overwritten later;
// a check at a nondet index finds it. The words are a progression but for
// one; the array is too big for an array term over its cells.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int a[20000];
int main(void) {
  for (int i = 0; i < 20000; i++) a[i] = 5 * i + 2;
  a[12345] = 0;
  unsigned k = __VERIFIER_nondet_uint();
  if (k >= 20000) return 0;
  if (a[k] != 5 * (int)k + 2) {
    reach_error();
    abort();
  }
  return 0;
}
