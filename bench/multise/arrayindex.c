// braid-args:
// Table 1, Array Index: the position a symbolic key would take in an array
// of N symbolic integers (how many elements are smaller), then a read at it.
#define N 12
extern int __VERIFIER_nondet_int(void);

int main(void) {
    int a[N + 1];
    for (int i = 0; i < N; i++)
        a[i] = __VERIFIER_nondet_int();
    a[N] = 0;
    int key = __VERIFIER_nondet_int();
    int index = 0;
    for (int i = 0; i < N; i++)
        if (a[i] < key)
            index++;
    return a[index];
}
