// braid-args:
// Table 1, Binary Search Tree: N symbolic keys inserted into a binary
// search tree (nodes from a static pool; duplicates ignored), then a
// lookup of a symbolic key and the tree's height.
#define N 5
extern int __VERIFIER_nondet_int(void);

struct node {
    int key;
    struct node *left, *right;
};

static struct node pool[N];
static int used;

struct node *insert(struct node *t, int key) {
    if (t == 0) {
        struct node *n = &pool[used++];
        n->key = key;
        n->left = n->right = 0;
        return n;
    }
    if (key < t->key)
        t->left = insert(t->left, key);
    else if (key > t->key)
        t->right = insert(t->right, key);
    return t;
}

int contains(struct node *t, int key) {
    while (t != 0) {
        if (key == t->key)
            return 1;
        t = key < t->key ? t->left : t->right;
    }
    return 0;
}

int height(struct node *t) {
    if (t == 0)
        return 0;
    int l = height(t->left), r = height(t->right);
    return 1 + (l > r ? l : r);
}

int main(void) {
    struct node *root = 0;
    for (int i = 0; i < N; i++)
        root = insert(root, __VERIFIER_nondet_int());
    int found = contains(root, __VERIFIER_nondet_int());
    return found * 100 + height(root);
}
