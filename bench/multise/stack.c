// braid-args:
// Table 1, Stack: N symbolic operations on a bounded stack (push a symbolic
// value, or pop when not empty); every pop checks the stack's size, and the
// result is the top and the size.
#define N 13
#define CAP 16
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

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
    int pushes = 0;
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0) {
            push(&s, __VERIFIER_nondet_int());
            pushes++;
        } else {
            pop(&s);
        }
        if (s.size > pushes)
            reach_error();
    }
    int top = s.size > 0 ? s.items[s.size - 1] : 0;
    return top + s.size;
}
