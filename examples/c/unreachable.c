// braid-args:
// __builtin_trap() is wasm's `unreachable`.
extern unsigned __VERIFIER_nondet_uint(void);

int main(void) {
  unsigned flags = __VERIFIER_nondet_uint();
  if ((flags & 0x5) == 0x5 && (flags >> 28) == 0xA) __builtin_trap();
  return (int)(flags & 0xff);
}
