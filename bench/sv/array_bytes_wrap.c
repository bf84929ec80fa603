// expect: TRUE
// Arrays: a 4 096-byte table filled with its index modulo 256, read at a
// nondet index.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
unsigned char t[4096];
int main(void) {
  for (int i = 0; i < 4096; i++) t[i] = (unsigned char)i;
  unsigned k = __VERIFIER_nondet_uint() % 4096;
  if (t[k] != (k & 0xff)) {
    reach_error();
    abort();
  }
  return 0;
}
