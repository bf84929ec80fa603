// expect: TRUE
// Recursion: Ackermann's function grows faster than its second argument.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
static int ack(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}
int main(void) {
  int m = __VERIFIER_nondet_int();
  int n = __VERIFIER_nondet_int();
  if (m < 0 || m > 2 || n < 0 || n > 3) return 0;
  if (ack(m, n) <= n) {
    reach_error();
    abort();
  }
  return 0;
}
