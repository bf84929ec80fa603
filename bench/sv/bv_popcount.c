// expect: TRUE
// Bit-vectors: two ways of counting set bits agree (a loop over the 32
// bits; Kernighan's loop, whose trip count depends on the input).
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
static int by_bits(unsigned x) {
  int c = 0;
  for (int i = 0; i < 32; i++) c += (x >> i) & 1;
  return c;
}
static int kernighan(unsigned x) {
  int c = 0;
  while (x) {
    x &= x - 1;
    c++;
  }
  return c;
}
int main(void) {
  unsigned x = __VERIFIER_nondet_uint();
  if (by_bits(x) != kernighan(x)) {
    reach_error();
    abort();
  }
  return 0;
}
