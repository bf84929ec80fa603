// braid-args:
// Table 1, BDD: a reduced ordered BDD library (unique table over a static
// node pool, recursive apply for and/or/xor). The harness folds N symbolic
// steps (an operator and a variable out of V) into one BDD, then evaluates
// it under a symbolic assignment.
#define N 3
#define V 3
#define NODES 64
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);

enum { AND, OR, XOR };

struct bdd {
    int var, lo, hi;
};

static struct bdd nodes[NODES];
static int count;

// Node 0 is false and node 1 true; both sit at variable V, below the rest.
int mk(int var, int lo, int hi) {
    if (lo == hi)
        return lo;
    for (int i = 2; i < count; i++)
        if (nodes[i].var == var && nodes[i].lo == lo && nodes[i].hi == hi)
            return i;
    nodes[count].var = var;
    nodes[count].lo = lo;
    nodes[count].hi = hi;
    return count++;
}

int terminal(int op, int u, int v) {
    if (op == AND)
        return u & v;
    if (op == OR)
        return u | v;
    return u ^ v;
}

int apply(int op, int u, int v) {
    if (u <= 1 && v <= 1)
        return terminal(op, u, v);
    int vu = nodes[u].var, vv = nodes[v].var;
    if (vu == vv)
        return mk(vu, apply(op, nodes[u].lo, nodes[v].lo), apply(op, nodes[u].hi, nodes[v].hi));
    if (vu < vv)
        return mk(vu, apply(op, nodes[u].lo, v), apply(op, nodes[u].hi, v));
    return mk(vv, apply(op, u, nodes[v].lo), apply(op, u, nodes[v].hi));
}

int eval(int u, int *assignment) {
    while (u > 1)
        u = assignment[nodes[u].var] ? nodes[u].hi : nodes[u].lo;
    return u;
}

int main(void) {
    nodes[0].var = nodes[1].var = V;
    count = 2;
    int f = 0;
    for (int k = 0; k < N; k++) {
        int op = __VERIFIER_nondet_int(), var = __VERIFIER_nondet_int();
        __VERIFIER_assume(op >= AND && op <= XOR && var >= 0 && var < V);
        f = apply(op, f, mk(var, 0, 1));
    }
    int assignment[V];
    for (int i = 0; i < V; i++)
        assignment[i] = __VERIFIER_nondet_int() > 0;
    return eval(f, assignment) * 100 + count;
}
