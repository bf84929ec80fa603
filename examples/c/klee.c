// braid-args:
// KLEE convention: klee_make_symbolic on a buffer, klee_assume, klee_range;
// the path where the buffer spells "bug" aborts.
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void klee_assume(unsigned long);
extern int klee_range(int, int, const char *);
extern void abort(void);

int main(void) {
  char buf[3];
  klee_make_symbolic(buf, sizeof buf, "buf");
  klee_assume(buf[0] != 0);
  int n = klee_range(0, 4, "n");
  if (buf[0] == 'b' && buf[1] == 'u' && buf[2] == 'g' && n == 3) abort();
  return n;
}
