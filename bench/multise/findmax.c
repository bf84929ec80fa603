// braid-args:
// Table 1, Find Max: N symbolic integers in an array, folded by a branching max.
#define N 13
extern int __VERIFIER_nondet_int(void);

int max(int a, int b) {
    if (a > b)
        return a;
    return b;
}

int main(void) {
    int a[N];
    for (int i = 0; i < N; i++)
        a[i] = __VERIFIER_nondet_int();
    int m = a[0];
    for (int i = 1; i < N; i++)
        m = max(m, a[i]);
    return m;
}
