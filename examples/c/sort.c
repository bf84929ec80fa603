// braid-args:
// Insertion sort of four symbolic ints, checked: every path is sorted.
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void __assert_fail(const char *, const char *, unsigned, const char *);

int main(void) {
  int a[4];
  klee_make_symbolic(a, sizeof a, "a");
  for (int i = 1; i < 4; i++) {
    int v = a[i], j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
  for (int i = 0; i < 3; i++)
    if (a[i] > a[i + 1]) __assert_fail("sorted", "sort.c", 17, "main");
  return a[0];
}
