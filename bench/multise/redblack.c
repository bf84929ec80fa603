// braid-args:
// Table 1, Red Black: N symbolic keys inserted into a red-black tree
// (nodes from a static pool, parent pointers, rotations and recolouring;
// duplicates ignored), then the black height checked on every path.
#define N 6
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

enum { RED, BLACK };

struct node {
    int key, colour;
    struct node *left, *right, *parent;
};

static struct node pool[N];
static int used;
static struct node *root;

void rotate_left(struct node *x) {
    struct node *y = x->right;
    x->right = y->left;
    if (y->left)
        y->left->parent = x;
    y->parent = x->parent;
    if (!x->parent)
        root = y;
    else if (x == x->parent->left)
        x->parent->left = y;
    else
        x->parent->right = y;
    y->left = x;
    x->parent = y;
}

void rotate_right(struct node *x) {
    struct node *y = x->left;
    x->left = y->right;
    if (y->right)
        y->right->parent = x;
    y->parent = x->parent;
    if (!x->parent)
        root = y;
    else if (x == x->parent->right)
        x->parent->right = y;
    else
        x->parent->left = y;
    y->right = x;
    x->parent = y;
}

void fix_insert(struct node *z) {
    while (z->parent && z->parent->colour == RED) {
        struct node *g = z->parent->parent;
        if (z->parent == g->left) {
            struct node *u = g->right;
            if (u && u->colour == RED) {
                z->parent->colour = BLACK;
                u->colour = BLACK;
                g->colour = RED;
                z = g;
            } else {
                if (z == z->parent->right) {
                    z = z->parent;
                    rotate_left(z);
                }
                z->parent->colour = BLACK;
                g->colour = RED;
                rotate_right(g);
            }
        } else {
            struct node *u = g->left;
            if (u && u->colour == RED) {
                z->parent->colour = BLACK;
                u->colour = BLACK;
                g->colour = RED;
                z = g;
            } else {
                if (z == z->parent->left) {
                    z = z->parent;
                    rotate_right(z);
                }
                z->parent->colour = BLACK;
                g->colour = RED;
                rotate_left(g);
            }
        }
    }
    root->colour = BLACK;
}

void insert(int key) {
    struct node *parent = 0, *t = root;
    while (t) {
        if (key == t->key)
            return;
        parent = t;
        t = key < t->key ? t->left : t->right;
    }
    struct node *z = &pool[used++];
    z->key = key;
    z->colour = RED;
    z->left = z->right = 0;
    z->parent = parent;
    if (!parent)
        root = z;
    else if (key < parent->key)
        parent->left = z;
    else
        parent->right = z;
    fix_insert(z);
}

// The black height of a subtree, or -1 when it breaks a red-black rule.
int black_height(struct node *t) {
    if (!t)
        return 1;
    if (t->colour == RED && ((t->left && t->left->colour == RED) || (t->right && t->right->colour == RED)))
        return -1;
    int l = black_height(t->left), r = black_height(t->right);
    if (l < 0 || l != r)
        return -1;
    return l + (t->colour == BLACK);
}

int main(void) {
    for (int i = 0; i < N; i++)
        insert(__VERIFIER_nondet_int());
    int h = black_height(root);
    if (h < 0)
        reach_error();
    return h;
}
