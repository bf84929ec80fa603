// expect: FALSE
// Bit-vectors: unsigned short arithmetic wraps at 65536 when stored back.
extern unsigned short __VERIFIER_nondet_ushort(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  unsigned short s = __VERIFIER_nondet_ushort();
  unsigned short t = s + 1;
  if (t < s) {
    reach_error();
    abort();
  }
  return 0;
}
