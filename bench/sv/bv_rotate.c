// expect: TRUE
// Bit-vectors: rotating right then left by the same amount is the identity.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
static unsigned rotl(unsigned x, unsigned n) { return n ? (x << n) | (x >> (32 - n)) : x; }
static unsigned rotr(unsigned x, unsigned n) { return n ? (x >> n) | (x << (32 - n)) : x; }
int main(void) {
  unsigned x = __VERIFIER_nondet_uint();
  unsigned n = __VERIFIER_nondet_uint() % 32;
  if (rotl(rotr(x, n), n) != x) {
    reach_error();
    abort();
  }
  return 0;
}
