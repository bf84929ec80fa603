// expect: FALSE
// Arrays: a maximum search that starts at the wrong index misses a[0].
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
#define N 5
int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = __VERIFIER_nondet_int();
  int max = a[1];
  for (int i = 2; i < N; i++)
    if (a[i] > max) max = a[i];
  for (int i = 0; i < N; i++)
    if (a[i] > max) {
      reach_error();
      abort();
    }
  return 0;
}
