// braid-args:
// A skip list of up to 3 levels (nodes from a static pool, a head node
// with every level) driven by N symbolic operations: an insert of a
// symbolic key in 0..K-1 at a symbolic height (the coin flips a real skip
// list draws at random), a delete, or a lookup. At the end every level is
// checked: sorted, and a sublist of the level below; every lookup's answer
// is what a plain array of the live keys says.
#define N 3
#define K 8
#define LEVELS 3
#define POOL (N + 1)
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct node {
    int key, height;
    struct node *next[LEVELS];
};

static struct node pool[POOL];
static int used;
static struct node head = {-1, LEVELS, {0, 0, 0}};

// The last node before k on each level.
static void find(int k, struct node **update) {
    struct node *x = &head;
    for (int l = LEVELS - 1; l >= 0; l--) {
        while (x->next[l] && x->next[l]->key < k)
            x = x->next[l];
        update[l] = x;
    }
}

static int contains(int k) {
    struct node *update[LEVELS];
    find(k, update);
    struct node *x = update[0]->next[0];
    return x && x->key == k;
}

static void insert(int k, int height) {
    struct node *update[LEVELS];
    find(k, update);
    struct node *x = update[0]->next[0];
    if (x && x->key == k)
        return;
    x = &pool[used++];
    x->key = k;
    x->height = height;
    for (int l = 0; l < height; l++) {
        x->next[l] = update[l]->next[l];
        update[l]->next[l] = x;
    }
}

static void delete(int k) {
    struct node *update[LEVELS];
    find(k, update);
    struct node *x = update[0]->next[0];
    if (!x || x->key != k)
        return;
    for (int l = 0; l < x->height; l++)
        if (update[l]->next[l] == x)
            update[l]->next[l] = x->next[l];
}

static int check(void) {
    for (int l = 0; l < LEVELS; l++) {
        struct node *below = head.next[0];
        for (struct node *x = head.next[l]; x; x = x->next[l]) {
            if (x->next[l] && x->next[l]->key <= x->key)
                return 0;
            while (below && below != x)
                below = below->next[0];
            if (!below)
                return 0;
        }
    }
    return 1;
}

int main(void) {
    int live[K] = {0};
    for (int op = 0; op < N; op++) {
        int kind = __VERIFIER_nondet_int();
        int k = __VERIFIER_nondet_int();
        if (k < 0 || k >= K || kind < 0 || kind > 2)
            return 0;
        if (kind == 0) {
            int height = 1 + (__VERIFIER_nondet_int() & 1) + (__VERIFIER_nondet_int() & 1);
            insert(k, height);
            live[k] = 1;
        } else if (kind == 1) {
            delete(k);
            live[k] = 0;
        } else if (contains(k) != live[k]) {
            reach_error();
        }
    }
    if (!check())
        reach_error();
    return 0;
}
