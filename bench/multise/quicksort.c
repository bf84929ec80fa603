// braid-args:
// Table 1, Quick Sort: N symbolic integers sorted in place by quicksort
// (Lomuto partition), then checked sorted.
#define N 8
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int partition(int *a, int lo, int hi) {
    int pivot = a[hi];
    int i = lo;
    for (int j = lo; j < hi; j++) {
        if (a[j] < pivot) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
        }
    }
    int t = a[i];
    a[i] = a[hi];
    a[hi] = t;
    return i;
}

void quick_sort(int *a, int lo, int hi) {
    if (lo >= hi)
        return;
    int p = partition(a, lo, hi);
    quick_sort(a, lo, p - 1);
    quick_sort(a, p + 1, hi);
}

int main(void) {
    int a[N];
    for (int i = 0; i < N; i++)
        a[i] = __VERIFIER_nondet_int();
    quick_sort(a, 0, N - 1);
    for (int i = 1; i < N; i++)
        if (a[i - 1] > a[i])
            reach_error();
    return a[0];
}
