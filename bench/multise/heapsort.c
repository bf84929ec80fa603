// braid-args:
// Table 1, Heap Sort: N symbolic integers sorted in place by heap sort
// (sift-down), then checked sorted.
#define N 7
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

void sift_down(int *a, int root, int end) {
    while (2 * root + 1 < end) {
        int child = 2 * root + 1;
        if (child + 1 < end && a[child] < a[child + 1])
            child++;
        if (a[root] >= a[child])
            return;
        int t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

void heap_sort(int *a, int n) {
    for (int i = n / 2 - 1; i >= 0; i--)
        sift_down(a, i, n);
    for (int end = n - 1; end > 0; end--) {
        int t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

int main(void) {
    int a[N];
    for (int i = 0; i < N; i++)
        a[i] = __VERIFIER_nondet_int();
    heap_sort(a, N);
    for (int i = 1; i < N; i++)
        if (a[i - 1] > a[i])
            reach_error();
    return a[0];
}
