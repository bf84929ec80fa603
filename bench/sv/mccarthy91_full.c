// expect: TRUE
// Recursion: SV-COMP's McCarthy 91 over every int: 91 below 102, x - 10
// above.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
static int f91(int x) {
  if (x > 100) return x - 10;
  return f91(f91(x + 11));
}
int main(void) {
  int x = __VERIFIER_nondet_int();
  int result = f91(x);
  if (result == 91 || (x > 101 && result == x - 10)) return 0;
  reach_error();
  abort();
}
