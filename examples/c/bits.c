// braid-args:
// Bit operations: rotations, counting zeros and ones (clz, ctz, popcnt).
extern unsigned __VERIFIER_nondet_uint(void);
extern void reach_error(void);

int main(void) {
  unsigned x = __VERIFIER_nondet_uint();
  unsigned r = (x << 7) | (x >> 25);
  if (__builtin_popcount(x) == 3 && __builtin_ctz(x) == 4 && __builtin_clz(x) == 20) reach_error();
  return (int)(r ^ x);
}
