// expect: TRUE
// Loops: nested array initialisation (concrete work) and a check at a
// nondet position.
extern unsigned int __VERIFIER_nondet_uint(void);
extern void abort(void);
void reach_error(void) {}
int m[64][64];
int main(void) {
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++) m[i][j] = i * 64 + j;
  unsigned r = __VERIFIER_nondet_uint() % 64;
  unsigned c = __VERIFIER_nondet_uint() % 64;
  if (m[r][c] != (int)(r * 64 + c)) {
    reach_error();
    abort();
  }
  return 0;
}
