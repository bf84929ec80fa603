// braid-args:
// Table 1, Stack: N symbolic operations on a bounded stack (push a symbolic
// value, or pop when not empty), then the sum of what is left.
#define N 9
#define CAP 16
extern int __VERIFIER_nondet_int(void);

struct stack {
    int items[CAP];
    int size;
};

void push(struct stack *s, int x) {
    if (s->size < CAP)
        s->items[s->size++] = x;
}

int pop(struct stack *s) {
    if (s->size == 0)
        return 0;
    return s->items[--s->size];
}

int main(void) {
    struct stack s;
    s.size = 0;
    int popped = 0;
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0)
            push(&s, __VERIFIER_nondet_int());
        else
            popped += pop(&s);
    }
    int sum = 0;
    while (s.size > 0)
        sum += pop(&s);
    return sum - popped;
}
