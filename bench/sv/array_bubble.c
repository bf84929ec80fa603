// expect: TRUE
// Arrays: bubble sort of five nondet values leaves them in order.
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
#define N 5
int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = __VERIFIER_nondet_int();
  for (int i = 0; i < N; i++)
    for (int j = 0; j + 1 < N - i; j++)
      if (a[j] > a[j + 1]) {
        int t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
  for (int i = 0; i + 1 < N; i++)
    if (a[i] > a[i + 1]) {
      reach_error();
      abort();
    }
  return 0;
}
