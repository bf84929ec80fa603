// A GIF header reader in the style of giflib's: signature and version,
// the logical screen descriptor, then one image descriptor that must lie
// inside the screen.
// braid-args: --seed-input bench/muse/gif.seed
#include "braid.h"
#define LEN 23
static unsigned u16(const unsigned char *p) { return p[0] | p[1] << 8; }

int main(void) {
  unsigned char h[LEN];
  klee_make_symbolic(h, sizeof h, "gif");
  if (h[0] != 'G' || h[1] != 'I' || h[2] != 'F') return 1;
  if (h[3] != '8' || (h[4] != '7' && h[4] != '9') || h[5] != 'a') return 2;
  unsigned sw = u16(h + 6), sh = u16(h + 8), flags = h[10], bg = h[11];
  if (sw == 0 || sh == 0) return 3;
  int global = flags >> 7;
  unsigned table = 2u << (flags & 7);
  if (global && bg >= table) return 4;
  if (h[12] != 0 && h[4] == '7') return 5;   /* aspect ratio is 89a only */
  if (h[13] != 0x2C) return h[13] == 0x21 ? 6 : 7;
  unsigned left = u16(h + 14), top = u16(h + 16), w = u16(h + 18), ht = u16(h + 20);
  if (w == 0 || ht == 0) return 8;
  if (left + w > sw) return 9;
  if (top + ht > sh) return 10;
  unsigned local = h[22];
  if ((local & 0x80) && (local & 0x18)) return 11;   /* reserved bits */
  if (left == 0 && top == 0 && w == sw && ht == sh) return 12;
  return 0;
}
