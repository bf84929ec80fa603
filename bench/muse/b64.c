// A base64-armoured record reader in the style of PEM and data-URI
// decoders: characters map to 6-bit values through a 256-entry table
// (invalid characters to 0x40, padding to 0x41), four characters make three
// bytes, and the decoded bytes are a small record: a magic, a version, a
// type, a length and a checksum over the payload.
// braid-args: --seed-input bench/muse/b64.seed
#include "braid.h"
#define LEN 16
static const unsigned char dec[256] = {
  ['A'] = 0, ['B'] = 1, ['C'] = 2, ['D'] = 3, ['E'] = 4, ['F'] = 5, ['G'] = 6, ['H'] = 7,
  ['I'] = 8, ['J'] = 9, ['K'] = 10, ['L'] = 11, ['M'] = 12, ['N'] = 13, ['O'] = 14, ['P'] = 15,
  ['Q'] = 16, ['R'] = 17, ['S'] = 18, ['T'] = 19, ['U'] = 20, ['V'] = 21, ['W'] = 22, ['X'] = 23,
  ['Y'] = 24, ['Z'] = 25, ['a'] = 26, ['b'] = 27, ['c'] = 28, ['d'] = 29, ['e'] = 30, ['f'] = 31,
  ['g'] = 32, ['h'] = 33, ['i'] = 34, ['j'] = 35, ['k'] = 36, ['l'] = 37, ['m'] = 38, ['n'] = 39,
  ['o'] = 40, ['p'] = 41, ['q'] = 42, ['r'] = 43, ['s'] = 44, ['t'] = 45, ['u'] = 46, ['v'] = 47,
  ['w'] = 48, ['x'] = 49, ['y'] = 50, ['z'] = 51, ['0'] = 52, ['1'] = 53, ['2'] = 54, ['3'] = 55,
  ['4'] = 56, ['5'] = 57, ['6'] = 58, ['7'] = 59, ['8'] = 60, ['9'] = 61, ['+'] = 62, ['/'] = 63,
  ['='] = 0x41,
};
static unsigned char in[LEN];
static unsigned char out[LEN / 4 * 3];

// The decoded length, or -1 on a bad character or misplaced padding.
static int decode(void) {
  int n = 0;
  for (int i = 0; i < LEN; i += 4) {
    unsigned v[4];
    int pad = 0;
    for (int j = 0; j < 4; j++) {
      unsigned d = dec[in[i + j]];
      if (d == 0x41) {
        if (i + 4 != LEN || j < 2) return -1;
        pad++;
        d = 0;
      } else if (d > 63 || (d == 0 && in[i + j] != 'A') || pad) {
        return -1;
      }
      v[j] = d;
    }
    unsigned w = v[0] << 18 | v[1] << 12 | v[2] << 6 | v[3];
    out[n++] = w >> 16;
    if (pad < 2) out[n++] = w >> 8;
    if (pad < 1) out[n++] = w;
  }
  return n;
}

int main(void) {
  klee_make_symbolic(in, sizeof in, "armour");
  int n = decode();
  if (n < 0) return 1;
  if (n < 6) return 2;
  if (out[0] != 'R' || out[1] != 'C') return 3;
  unsigned version = out[2] >> 4, type = out[2] & 15;
  if (version == 0 || version > 2) return 4;
  if (type > 5) return 5;
  unsigned len = out[3];
  if (4 + len + 1 > (unsigned)n) return 6;
  unsigned sum = 0;
  for (unsigned i = 0; i < len; i++) sum += out[4 + i];
  if ((sum & 0xff) != out[4 + len]) return 7;
  if (type == 3 && len >= 2 && out[4] == 0xff) return version == 2 ? 8 : 9;
  return 10 + type;
}
