// braid-args:
// Table 1, Symbolic Arithmetic: a small library of symbolic expressions
// (constants, one variable x, sums and products) whose constructors fold
// constants and simplify 0 + e, 1 * e and 0 * e. The harness folds N
// symbolic steps (an operator and either x or a symbolic constant) into
// one expression, then evaluates it at a symbolic x.
#define N 5
#define NODES (2 * N + 2)
extern int __VERIFIER_nondet_int(void);

enum { CONSTANT, VARIABLE, ADD, MUL };

struct expr {
    int kind, value;
    struct expr *left, *right;
};

static struct expr pool[NODES];
static int used;

struct expr *node(int kind, int value, struct expr *l, struct expr *r) {
    struct expr *e = &pool[used++];
    e->kind = kind;
    e->value = value;
    e->left = l;
    e->right = r;
    return e;
}

struct expr *constant(int c) { return node(CONSTANT, c, 0, 0); }

int is_constant(struct expr *e, int c) { return e->kind == CONSTANT && e->value == c; }

struct expr *add(struct expr *a, struct expr *b) {
    if (a->kind == CONSTANT && b->kind == CONSTANT)
        return constant(a->value + b->value);
    if (is_constant(a, 0))
        return b;
    if (is_constant(b, 0))
        return a;
    return node(ADD, 0, a, b);
}

struct expr *mul(struct expr *a, struct expr *b) {
    if (a->kind == CONSTANT && b->kind == CONSTANT)
        return constant(a->value * b->value);
    if (is_constant(a, 0) || is_constant(b, 0))
        return constant(0);
    if (is_constant(a, 1))
        return b;
    if (is_constant(b, 1))
        return a;
    return node(MUL, 0, a, b);
}

int eval(struct expr *e, int x) {
    switch (e->kind) {
    case CONSTANT:
        return e->value;
    case VARIABLE:
        return x;
    case ADD:
        return eval(e->left, x) + eval(e->right, x);
    default:
        return eval(e->left, x) * eval(e->right, x);
    }
}

int main(void) {
    struct expr *x = node(VARIABLE, 0, 0, 0);
    struct expr *e = constant(__VERIFIER_nondet_int());
    for (int k = 0; k < N; k++) {
        struct expr *operand = __VERIFIER_nondet_int() > 0 ? x : constant(__VERIFIER_nondet_int());
        e = __VERIFIER_nondet_int() > 0 ? add(e, operand) : mul(e, operand);
    }
    return eval(e, __VERIFIER_nondet_int());
}
