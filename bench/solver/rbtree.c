// bench/solver: N symbolic keys inserted into a left-leaning red-black tree
// (Sedgewick's insertion with rotations and colour flips), then a lookup of
// a symbolic key; every path ends with the tree's invariants checked (keys
// in order, no red right link, no two reds in a row, equal black height).
#ifndef N
#define N 4
#endif
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

#define RED 1
#define BLACK 0

struct node {
    int key, color;
    struct node *left, *right;
};

static struct node pool[N];
static int used;

static int is_red(struct node *x) { return x != 0 && x->color == RED; }

static struct node *rotate_left(struct node *h) {
    struct node *x = h->right;
    h->right = x->left;
    x->left = h;
    x->color = h->color;
    h->color = RED;
    return x;
}

static struct node *rotate_right(struct node *h) {
    struct node *x = h->left;
    h->left = x->right;
    x->right = h;
    x->color = h->color;
    h->color = RED;
    return x;
}

static void flip(struct node *h) {
    h->color = RED;
    h->left->color = BLACK;
    h->right->color = BLACK;
}

static struct node *insert(struct node *h, int key) {
    if (h == 0) {
        struct node *n = &pool[used++];
        n->key = key;
        n->color = RED;
        n->left = n->right = 0;
        return n;
    }
    if (key < h->key)
        h->left = insert(h->left, key);
    else if (key > h->key)
        h->right = insert(h->right, key);
    if (is_red(h->right) && !is_red(h->left))
        h = rotate_left(h);
    if (is_red(h->left) && is_red(h->left->left))
        h = rotate_right(h);
    if (is_red(h->left) && is_red(h->right))
        flip(h);
    return h;
}

static int contains(struct node *x, int key) {
    while (x) {
        if (key == x->key)
            return 1;
        x = key < x->key ? x->left : x->right;
    }
    return 0;
}

// Black height of x, checking order within (lo, hi) and the colour rules.
static int check(struct node *x, int lo, int has_lo, int hi, int has_hi) {
    if (x == 0)
        return 1;
    if ((has_lo && x->key <= lo) || (has_hi && x->key >= hi))
        reach_error();
    if (is_red(x->right))
        reach_error();
    if (is_red(x) && is_red(x->left))
        reach_error();
    int l = check(x->left, lo, has_lo, x->key, 1);
    int r = check(x->right, x->key, 1, hi, has_hi);
    if (l != r)
        reach_error();
    return l + (x->color == BLACK);
}

int main(void) {
    struct node *root = 0;
    for (int i = 0; i < N; i++) {
        root = insert(root, __VERIFIER_nondet_int());
        root->color = BLACK;
    }
    check(root, 0, 0, 0, 0);
    return contains(root, __VERIFIER_nondet_int());
}
