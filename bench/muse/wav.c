// A WAV (RIFF) header check in the style of audio decoders: chunk ids,
// the format chunk's fields and the relations between them.
// braid-args: --seed-input bench/muse/wav.seed
#include "braid.h"
#define LEN 44
static unsigned u16(const unsigned char *p) { return p[0] | p[1] << 8; }
static unsigned u32(const unsigned char *p) { return u16(p) | u16(p + 2) << 16; }
static int id(const unsigned char *p, const char *s) {
  return p[0] == s[0] && p[1] == s[1] && p[2] == s[2] && p[3] == s[3];
}

int main(void) {
  unsigned char h[LEN];
  klee_make_symbolic(h, sizeof h, "wav");
  if (!id(h, "RIFF")) return 1;
  if (!id(h + 8, "WAVE")) return 2;
  if (!id(h + 12, "fmt ")) return 3;
  unsigned riff = u32(h + 4), fmt = u32(h + 16);
  if (fmt != 16 && fmt != 18 && fmt != 40) return 4;
  unsigned format = u16(h + 20), channels = u16(h + 22);
  unsigned rate = u32(h + 24), byte_rate = u32(h + 28);
  unsigned align = u16(h + 32), bits = u16(h + 34);
  if (format != 1 && format != 3 && format != 0xFFFE) return 5;
  if (format == 0xFFFE && fmt != 40) return 6;
  if (channels == 0 || channels > 8) return 7;
  if (rate < 8000 || rate > 192000) return 8;
  if (bits != 8 && bits != 16 && bits != 24 && bits != 32) return 9;
  if (format == 3 && bits != 32) return 10;
  if (align != channels * (bits / 8)) return 11;
  if (byte_rate != rate * align) return 12;
  if (!id(h + 36, "data")) return 13;
  unsigned data = u32(h + 40);
  if (data > riff - 36) return 14;
  if (data % align != 0) return 15;
  if (riff + 8 < 44 + data) return 16;
  return 0;
}
