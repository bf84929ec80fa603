// braid-args:
// Table 1, Kadane Subarray: the largest sum of a contiguous subarray of N
// symbolic integers (small, so sums do not overflow).
#define N 6
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);

int main(void) {
    int a[N];
    for (int i = 0; i < N; i++) {
        a[i] = __VERIFIER_nondet_int();
        __VERIFIER_assume(a[i] > -100 && a[i] < 100);
    }
    int best = a[0], here = a[0];
    for (int i = 1; i < N; i++) {
        if (here + a[i] > a[i])
            here = here + a[i];
        else
            here = a[i];
        if (here > best)
            best = here;
    }
    return best;
}
