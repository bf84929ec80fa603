// expect: TRUE
// Arrays: reversing an array twice gives it back.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
#define N 8
static void reverse(int *a, int n) {
  for (int i = 0, j = n - 1; i < j; i++, j--) {
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
int main(void) {
  int a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = b[i] = __VERIFIER_nondet_int();
  reverse(a, N);
  reverse(a, N);
  for (int i = 0; i < N; i++)
    if (a[i] != b[i]) {
      reach_error();
      abort();
    }
  return 0;
}
