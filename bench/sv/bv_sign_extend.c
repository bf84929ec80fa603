// expect: FALSE
// Bit-vectors: a char is signed on wasm32 (as on x86): the byte 200 reads
// back as -56 once widened to int.
extern char __VERIFIER_nondet_char(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  char c = __VERIFIER_nondet_char();
  int i = c;
  if ((unsigned char)c == 200 && i == -56) {
    reach_error();
    abort();
  }
  return 0;
}
