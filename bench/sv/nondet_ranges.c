// expect: TRUE
// Every __VERIFIER_nondet_<type> stays within its type: a _Bool is 0 or 1,
// an unsigned char below 256, a short within 16 bits, and so on. A tool
// that hands back a full 32-bit value where clang relies on the ABI's
// extension would report a false alarm here.
extern _Bool __VERIFIER_nondet_bool(void);
extern char __VERIFIER_nondet_char(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
extern short __VERIFIER_nondet_short(void);
extern unsigned short __VERIFIER_nondet_ushort(void);
extern long long __VERIFIER_nondet_longlong(void);
extern unsigned long __VERIFIER_nondet_ulong(void);
extern void abort(void);
void reach_error(void) {}
void __VERIFIER_assert(int cond) {
  if (!cond) {
  ERROR: {
    reach_error();
    abort();
  }
  }
}
int main(void) {
  _Bool b = __VERIFIER_nondet_bool();
  int bi = b;
  __VERIFIER_assert(bi == 0 || bi == 1);
  int c = __VERIFIER_nondet_char();
  __VERIFIER_assert(c >= -128 && c <= 127);
  int uc = __VERIFIER_nondet_uchar();
  __VERIFIER_assert(uc >= 0 && uc <= 255);
  int s = __VERIFIER_nondet_short();
  __VERIFIER_assert(s >= -32768 && s <= 32767);
  int us = __VERIFIER_nondet_ushort();
  __VERIFIER_assert(us >= 0 && us <= 65535);
  long long ll = __VERIFIER_nondet_longlong();
  __VERIFIER_assert(ll >= -9223372036854775807LL - 1);
  unsigned long ul = __VERIFIER_nondet_ulong();
  __VERIFIER_assert(ul <= 4294967295UL);
  return 0;
}
