// bench/solver: N symbolic keys inserted into a skip list whose node levels
// come from a fixed pseudo-random sequence (as a seeded generator gives),
// then a symbolic key looked up and removed; every path ends with each
// level checked sorted and a sublist of the level below.
#ifndef N
#define N 4
#endif
#define LEVELS 3
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct node {
    int key, level;
    struct node *next[LEVELS];
};

static struct node pool[N + 1];
static int used;
static unsigned seed = 12345;

static int random_level(void) {
    int l = 1;
    for (;;) {
        seed = seed * 1103515245u + 12345u;
        if (l == LEVELS || ((seed >> 16) & 1))
            return l;
        l++;
    }
}

static struct node *head;

static void insert(int key) {
    struct node *update[LEVELS];
    struct node *x = head;
    for (int i = LEVELS - 1; i >= 0; i--) {
        while (x->next[i] && x->next[i]->key < key)
            x = x->next[i];
        update[i] = x;
    }
    if (x->next[0] && x->next[0]->key == key)
        return;
    struct node *n = &pool[used++];
    n->key = key;
    n->level = random_level();
    for (int i = 0; i < LEVELS; i++)
        n->next[i] = 0;
    for (int i = 0; i < n->level; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
    }
}

static int remove_key(int key) {
    struct node *update[LEVELS];
    struct node *x = head;
    for (int i = LEVELS - 1; i >= 0; i--) {
        while (x->next[i] && x->next[i]->key < key)
            x = x->next[i];
        update[i] = x;
    }
    x = x->next[0];
    if (!x || x->key != key)
        return 0;
    for (int i = 0; i < x->level; i++)
        if (update[i]->next[i] == x)
            update[i]->next[i] = x->next[i];
    return 1;
}

static void check(void) {
    for (int i = 0; i < LEVELS; i++) {
        struct node *below = head->next[i > 0 ? i - 1 : 0];
        for (struct node *x = head->next[i]; x; x = x->next[i]) {
            if (x->next[i] && x->next[i]->key <= x->key)
                reach_error();
            if (i > 0) {
                while (below && below != x)
                    below = below->next[i - 1];
                if (!below)
                    reach_error();
            }
        }
    }
}

int main(void) {
    head = &pool[used++];
    head->level = LEVELS;
    for (int i = 0; i < LEVELS; i++)
        head->next[i] = 0;
    for (int i = 0; i < N; i++)
        insert(__VERIFIER_nondet_int());
    int removed = remove_key(__VERIFIER_nondet_int());
    check();
    return removed;
}
