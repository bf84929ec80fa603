// bench/solver: N operations on a B-tree of minimum degree 2 (2-3-4 tree)
// over symbolic keys, in the style of the B-tree benchmarks of wasm
// symbolic-execution suites: each operation is an insert or a lookup
// (chosen by a symbolic byte) of a symbolic key below U; nodes split on the
// way down. Every path ends with the tree's invariants checked.
#ifndef N
#define N 3
#endif
#ifndef U
#define U 8
#endif
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void reach_error(void);

#define T 2
#define MAXK (2 * T - 1)

struct node {
    int n, leaf;
    int key[MAXK];
    struct node *child[2 * T];
};

static struct node pool[2 * N + 2];
static int used;

static struct node *fresh(int leaf) {
    struct node *x = &pool[used++];
    x->n = 0;
    x->leaf = leaf;
    return x;
}

static int search(struct node *x, int k) {
    while (x) {
        int i = 0;
        while (i < x->n && k > x->key[i])
            i++;
        if (i < x->n && k == x->key[i])
            return 1;
        if (x->leaf)
            return 0;
        x = x->child[i];
    }
    return 0;
}

// Splits the full child i of x.
static void split(struct node *x, int i) {
    struct node *y = x->child[i];
    struct node *z = fresh(y->leaf);
    z->n = T - 1;
    for (int j = 0; j < T - 1; j++)
        z->key[j] = y->key[j + T];
    if (!y->leaf)
        for (int j = 0; j < T; j++)
            z->child[j] = y->child[j + T];
    y->n = T - 1;
    for (int j = x->n; j >= i + 1; j--)
        x->child[j + 1] = x->child[j];
    x->child[i + 1] = z;
    for (int j = x->n - 1; j >= i; j--)
        x->key[j + 1] = x->key[j];
    x->key[i] = y->key[T - 1];
    x->n++;
}

static void insert_nonfull(struct node *x, int k) {
    for (;;) {
        int i = x->n - 1;
        if (x->leaf) {
            while (i >= 0 && k < x->key[i]) {
                x->key[i + 1] = x->key[i];
                i--;
            }
            x->key[i + 1] = k;
            x->n++;
            return;
        }
        while (i >= 0 && k < x->key[i])
            i--;
        i++;
        if (x->child[i]->n == MAXK) {
            split(x, i);
            if (k > x->key[i])
                i++;
        }
        x = x->child[i];
    }
}

static struct node *insert(struct node *root, int k) {
    if (search(root, k))
        return root;
    if (root->n == MAXK) {
        struct node *s = fresh(0);
        s->child[0] = root;
        split(s, 0);
        insert_nonfull(s, k);
        return s;
    }
    insert_nonfull(root, k);
    return root;
}

// Keys in order, each node within its bounds; returns the number of keys.
static int check(struct node *x, int lo, int hi, int depth, int *leaf_depth) {
    if (x->n < 1 || x->n > MAXK)
        reach_error();
    int count = x->n;
    for (int i = 0; i < x->n; i++) {
        if (x->key[i] <= lo || x->key[i] >= hi)
            reach_error();
        if (i > 0 && x->key[i - 1] >= x->key[i])
            reach_error();
    }
    if (x->leaf) {
        if (*leaf_depth < 0)
            *leaf_depth = depth;
        else if (*leaf_depth != depth)
            reach_error();
        return count;
    }
    for (int i = 0; i <= x->n; i++) {
        int l = i == 0 ? lo : x->key[i - 1];
        int h = i == x->n ? hi : x->key[i];
        count += check(x->child[i], l, h, depth + 1, leaf_depth);
    }
    return count;
}

int main(void) {
    struct node *root = fresh(1);
    int inserted = 0;
    for (int op = 0; op < N; op++) {
        int kind = __VERIFIER_nondet_int();
        int k = __VERIFIER_nondet_int();
        __VERIFIER_assume(k >= 0 && k < U);
        if (kind & 1) {
            if (!search(root, k)) {
                root = insert(root, k);
                inserted++;
            }
        } else if (search(root, k) && inserted == 0) {
            reach_error();
        }
    }
    if (root->n > 0) {
        int leaf_depth = -1;
        if (check(root, -1, U, 0, &leaf_depth) != inserted)
            reach_error();
    }
    return 0;
}
