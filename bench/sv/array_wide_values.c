// expect: FALSE
// Arrays: 30 000 64-bit values in progression on the stack; the last one
// is reached through a nondet index.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  long long b[30000];
  for (int i = 0; i < 30000; i++) b[i] = 1000000007LL * i;
  unsigned k = __VERIFIER_nondet_uint();
  if (k >= 30000) return 0;
  if (b[k] == 1000000007LL * 29999) {
    reach_error();
    abort();
  }
  return 0;
}
