// A BMP header check in the style of image libraries' loaders: the file
// header, a BITMAPINFOHEADER, and the consistency of sizes and offsets.
// braid-args: --seed-input bench/muse/bmp.seed
#include "braid.h"
#define LEN 54
static unsigned u16(const unsigned char *p) { return p[0] | p[1] << 8; }
static unsigned u32(const unsigned char *p) { return u16(p) | u16(p + 2) << 16; }

int main(void) {
  unsigned char h[LEN];
  klee_make_symbolic(h, sizeof h, "bmp");
  if (h[0] != 'B' || h[1] != 'M') return 1;
  unsigned file_size = u32(h + 2), offset = u32(h + 10), info = u32(h + 14);
  if (info != 40 && info != 108 && info != 124) return 2;
  if (offset < 14 + info) return 3;
  if (file_size < offset) return 4;
  int width = (int)u32(h + 18), height = (int)u32(h + 22);
  unsigned planes = u16(h + 26), bpp = u16(h + 28), compression = u32(h + 30);
  if (planes != 1) return 5;
  if (width <= 0 || width > 4096) return 6;
  int top_down = height < 0;
  if (top_down) height = -height;
  if (height == 0 || height > 4096) return 7;
  switch (bpp) {
  case 1: case 4: case 8: case 24: break;
  case 16: case 32: if (compression == 3) break; /* bit fields */ break;
  default: return 8;
  }
  if (compression > 3) return 9;
  if (compression == 1 && bpp != 8) return 10;   /* RLE8 */
  if (compression == 2 && bpp != 4) return 11;   /* RLE4 */
  if (top_down && compression != 0 && compression != 3) return 12;
  unsigned image = u32(h + 34);
  if (compression == 0 && image != 0 && image > file_size - offset) return 13;
  unsigned colors = u32(h + 46);
  if (bpp <= 8 && colors > (1u << bpp)) return 14;
  if (offset > 14 + info + 4 * colors + 1024) return 15;  /* a gap after the palette */
  unsigned xppm = u32(h + 38), yppm = u32(h + 42);
  if (xppm != 0 && yppm != 0 && (xppm > 2 * yppm || yppm > 2 * xppm)) return 16;
  return 0;
}
