// braid-args:
// Table 1, Priority Queue: N symbolic operations on a binary min-heap:
// insert a symbolic value (sift up), or extract the minimum when not empty
// (sift down); then the minimum and the size.
#define N 7
#define CAP 16
extern int __VERIFIER_nondet_int(void);

struct heap {
    int items[CAP];
    int size;
};

void insert(struct heap *h, int x) {
    if (h->size == CAP)
        return;
    int i = h->size++;
    h->items[i] = x;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (h->items[parent] <= h->items[i])
            break;
        int t = h->items[parent];
        h->items[parent] = h->items[i];
        h->items[i] = t;
        i = parent;
    }
}

int extract_min(struct heap *h) {
    if (h->size == 0)
        return 0;
    int min = h->items[0];
    h->items[0] = h->items[--h->size];
    int i = 0;
    while (2 * i + 1 < h->size) {
        int child = 2 * i + 1;
        if (child + 1 < h->size && h->items[child + 1] < h->items[child])
            child++;
        if (h->items[i] <= h->items[child])
            break;
        int t = h->items[i];
        h->items[i] = h->items[child];
        h->items[child] = t;
        i = child;
    }
    return min;
}

int main(void) {
    struct heap h;
    h.size = 0;
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0)
            insert(&h, __VERIFIER_nondet_int());
        else
            extract_min(&h);
    }
    int min = h.size > 0 ? h.items[0] : 0;
    return min + h.size;
}
