// A PCX header check in the style of image loaders: manufacturer,
// version, encoding, window and the bytes per line the window needs.
// braid-args: --seed-input bench/muse/pcx.seed
#include "braid.h"
#define LEN 70
static unsigned u16(const unsigned char *p) { return p[0] | p[1] << 8; }

int main(void) {
  unsigned char h[LEN];
  klee_make_symbolic(h, sizeof h, "pcx");
  if (h[0] != 0x0A) return 1;
  unsigned version = h[1], encoding = h[2], bpp = h[3];
  if (version != 0 && version != 2 && version != 3 && version != 4 && version != 5) return 2;
  if (encoding != 1) return 3;
  if (bpp != 1 && bpp != 2 && bpp != 4 && bpp != 8) return 4;
  unsigned xmin = u16(h + 4), ymin = u16(h + 6), xmax = u16(h + 8), ymax = u16(h + 10);
  if (xmax < xmin || ymax < ymin) return 5;
  unsigned w = xmax - xmin + 1, ht = ymax - ymin + 1;
  if (w > 4096 || ht > 4096) return 6;
  unsigned planes = h[65], line = u16(h + 66), palette = u16(h + 68);
  if (planes == 0 || planes > 4) return 7;
  if (bpp == 8 && planes != 1 && planes != 3) return 8;
  if (line % 2 != 0) return 9;
  if (line < w) {
    if (bpp == 8) return 10;
    if (8 * line < w) return 11;
  }
  if (line > 2 * w + 2) return 12;
  if (palette != 1 && palette != 2 && version >= 4) return 13;
  if (version == 5 && bpp == 8 && planes == 1) return 14;   /* 256-colour palette at the end */
  return 0;
}
