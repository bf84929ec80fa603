// braid-args:
// A decoder's table lookup and a store at input-chosen offsets, each
// spanning more cells than braid forks over: they go through array terms,
// and the exploration is complete (no offset is concretised).
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void reach_error(void);

/* A hex digit's value plus one; 0 for other characters. */
static const unsigned char hexval[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

int seen[128];

int main(void) {
  unsigned char s[2];
  klee_make_symbolic(s, 2, "s");
  int hi = hexval[s[0]] - 1, lo = hexval[s[1]] - 1;
  if (hi < 0 || lo < 0) return -1;
  int v = hi * 16 + lo;
  seen[v & 127] = 1;
  if (seen[0x2a] && v > 0x80) reach_error();
  return v;
}
