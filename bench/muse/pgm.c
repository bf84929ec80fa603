// A PGM (P2/P5) header reader in the style of netpbm's: magic, then
// whitespace- and comment-separated decimal width, height and maxval.
// braid-args: --seed-input bench/muse/pgm.seed
#include "braid.h"
#define LEN 24
static unsigned char h[LEN];
static int at;

static int space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int skip(void) {
  while (at < LEN) {
    if (h[at] == '#') {
      while (at < LEN && h[at] != '\n') at++;
    } else if (space(h[at])) {
      at++;
    } else {
      return 0;
    }
  }
  return -1;
}
static int number(void) {
  if (skip() < 0) return -1;
  if (h[at] < '0' || h[at] > '9') return -2;
  int v = 0;
  while (at < LEN && h[at] >= '0' && h[at] <= '9') {
    v = 10 * v + (h[at] - '0');
    if (v > 65535) return -3;
    at++;
  }
  return v;
}

int main(void) {
  klee_make_symbolic(h, sizeof h, "pgm");
  if (h[0] != 'P' || (h[1] != '2' && h[1] != '5')) return 1;
  at = 2;
  int w = number(), hgt = number(), max = number();
  if (w < 0 || hgt < 0 || max < 0) return 2;
  if (w == 0 || hgt == 0) return 3;
  if (w > 640 || hgt > 480) return 4;
  if (max == 0 || max > 65535) return 5;
  if (at >= LEN || !space(h[at])) return 6;
  if (h[1] == '5' && max > 255 && 2 * w > 1024) return 7;
  if (w + hgt > 1000) return 8;
  return max < 256 ? 9 : 10;
}
