// Byte-heavy and input-free: FNV-1a and a rotate-xor hash over a buffer
// filled from a generator, ROUNDS times over (bench/wasm/concrete.sh).
#ifndef ROUNDS
#define ROUNDS 800
#endif
#define LEN 4096
static unsigned char buf[LEN];

int main(void) {
  unsigned s = 7;
  for (int i = 0; i < LEN; i++) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    buf[i] = (unsigned char)s;
  }
  unsigned fnv = 2166136261u, rot = 0;
  for (int r = 0; r < ROUNDS; r++)
    for (int i = 0; i < LEN; i++) {
      fnv = (fnv ^ buf[i]) * 16777619u;
      rot = ((rot << 5) | (rot >> 27)) ^ buf[i];
    }
  return (int)((fnv ^ rot) & 0x7fffffff);
}
