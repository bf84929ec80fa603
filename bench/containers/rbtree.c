// braid-args:
// A left-leaning red-black tree (Sedgewick's 2-3 variant: rotations and
// colour flips on the way back up a recursive insert; nodes from a static
// pool) driven by N symbolic operations: an insert of a symbolic key in
// 0..K-1 with a symbolic value, or a lookup. At the end the tree is
// checked: keys in order, no red right link, no two reds in a row, the
// same number of black links on every root-to-leaf path, and every
// lookup's answer what a plain array of the inserted pairs says.
#define N 3
#define K 8
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

enum { BLACK, RED };

struct node {
    int key, value, colour;
    struct node *left, *right;
};

static struct node pool[N];
static int used;
static struct node *root;

static int red(struct node *x) { return x && x->colour == RED; }

static struct node *rotate_left(struct node *h) {
    struct node *x = h->right;
    h->right = x->left;
    x->left = h;
    x->colour = h->colour;
    h->colour = RED;
    return x;
}

static struct node *rotate_right(struct node *h) {
    struct node *x = h->left;
    h->left = x->right;
    x->right = h;
    x->colour = h->colour;
    h->colour = RED;
    return x;
}

static void flip(struct node *h) {
    h->colour = !h->colour;
    h->left->colour = !h->left->colour;
    h->right->colour = !h->right->colour;
}

static struct node *put(struct node *h, int k, int v) {
    if (!h) {
        struct node *x = &pool[used++];
        x->key = k;
        x->value = v;
        x->colour = RED;
        x->left = x->right = 0;
        return x;
    }
    if (k < h->key)
        h->left = put(h->left, k, v);
    else if (k > h->key)
        h->right = put(h->right, k, v);
    else
        h->value = v;
    if (red(h->right) && !red(h->left))
        h = rotate_left(h);
    if (red(h->left) && red(h->left->left))
        h = rotate_right(h);
    if (red(h->left) && red(h->right))
        flip(h);
    return h;
}

static int get(int k, int *v) {
    struct node *x = root;
    while (x) {
        if (k < x->key)
            x = x->left;
        else if (k > x->key)
            x = x->right;
        else {
            *v = x->value;
            return 1;
        }
    }
    return 0;
}

// The black height of x's subtree with keys in (lo, hi), or -1 if broken.
static int check(struct node *x, int lo, int hi) {
    if (!x)
        return 0;
    if (x->key <= lo || x->key >= hi || red(x->right) || (red(x) && red(x->left)))
        return -1;
    int l = check(x->left, lo, x->key), r = check(x->right, x->key, hi);
    if (l < 0 || l != r)
        return -1;
    return l + !red(x);
}

int main(void) {
    int present[K] = {0}, values[K];
    for (int op = 0; op < N; op++) {
        int kind = __VERIFIER_nondet_int();
        int k = __VERIFIER_nondet_int();
        if (k < 0 || k >= K)
            return 0;
        if (kind & 1) {
            int v = -1, found = get(k, &v);
            if (found != present[k] || (found && v != values[k]))
                reach_error();
        } else {
            int v = __VERIFIER_nondet_int();
            root = put(root, k, v);
            root->colour = BLACK;
            present[k] = 1;
            values[k] = v;
        }
    }
    if (check(root, -1, K) < 0)
        reach_error();
    return 0;
}
