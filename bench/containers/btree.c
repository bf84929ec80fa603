// braid-args:
// A B-tree of minimum degree 2 (2-3-4 tree: up to 3 keys per node, nodes
// from a static pool, splits on the way down as in CLRS) driven by N
// symbolic operations: each is an insert or a lookup of a symbolic key in
// 0..K-1. At the end the tree is checked: keys in order inside every node
// and between subtrees, every leaf at the same depth, every lookup's answer
// what a plain array of the inserted keys says.
#define N 4
#define K 8
#define MAXKEYS 3
#define POOL (2 * N + 2)
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct node {
    int n, leaf;
    int keys[MAXKEYS];
    struct node *child[MAXKEYS + 1];
};

static struct node pool[POOL];
static int used;
static struct node *root;

static struct node *new_node(int leaf) {
    struct node *x = &pool[used++];
    x->n = 0;
    x->leaf = leaf;
    return x;
}

// Splits the full child i of x around its middle key.
static void split_child(struct node *x, int i) {
    struct node *y = x->child[i];
    struct node *z = new_node(y->leaf);
    z->n = 1;
    z->keys[0] = y->keys[2];
    if (!y->leaf) {
        z->child[0] = y->child[2];
        z->child[1] = y->child[3];
    }
    y->n = 1;
    for (int j = x->n; j > i; j--)
        x->child[j + 1] = x->child[j];
    x->child[i + 1] = z;
    for (int j = x->n - 1; j >= i; j--)
        x->keys[j + 1] = x->keys[j];
    x->keys[i] = y->keys[1];
    x->n++;
}

static int contains(struct node *x, int k) {
    while (x) {
        int i = 0;
        while (i < x->n && k > x->keys[i])
            i++;
        if (i < x->n && k == x->keys[i])
            return 1;
        if (x->leaf)
            return 0;
        x = x->child[i];
    }
    return 0;
}

static void insert_nonfull(struct node *x, int k) {
    while (!x->leaf) {
        int i = x->n - 1;
        while (i >= 0 && k < x->keys[i])
            i--;
        i++;
        if (x->child[i]->n == MAXKEYS) {
            split_child(x, i);
            if (k > x->keys[i])
                i++;
        }
        x = x->child[i];
    }
    int i = x->n - 1;
    while (i >= 0 && k < x->keys[i]) {
        x->keys[i + 1] = x->keys[i];
        i--;
    }
    x->keys[i + 1] = k;
    x->n++;
}

static void insert(int k) {
    if (contains(root, k))
        return;
    if (root->n == MAXKEYS) {
        struct node *s = new_node(0);
        s->child[0] = root;
        root = s;
        split_child(s, 0);
    }
    insert_nonfull(root, k);
}

static int leaf_depth = -1;

// Keys of x's subtree lie in (lo, hi); every leaf is at one depth.
static int check(struct node *x, int lo, int hi, int depth) {
    for (int i = 0; i < x->n; i++) {
        if (x->keys[i] <= lo || x->keys[i] >= hi)
            return 0;
        if (i > 0 && x->keys[i - 1] >= x->keys[i])
            return 0;
    }
    if (x->leaf) {
        if (leaf_depth < 0)
            leaf_depth = depth;
        return leaf_depth == depth;
    }
    for (int i = 0; i <= x->n; i++) {
        int l = i == 0 ? lo : x->keys[i - 1];
        int h = i == x->n ? hi : x->keys[i];
        if (!check(x->child[i], l, h, depth + 1))
            return 0;
    }
    return 1;
}

int main(void) {
    int inserted[N], m = 0;
    root = new_node(1);
    for (int op = 0; op < N; op++) {
        int kind = __VERIFIER_nondet_int();
        int k = __VERIFIER_nondet_int();
        if (k < 0 || k >= K)
            return 0;
        if (kind & 1) {
            int expect = 0;
            for (int j = 0; j < m; j++)
                if (inserted[j] == k)
                    expect = 1;
            if (contains(root, k) != expect)
                reach_error();
        } else {
            insert(k);
            inserted[m++] = k;
        }
    }
    if (!check(root, -1, K, 0))
        reach_error();
    return 0;
}
