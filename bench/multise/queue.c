// braid-args:
// Table 1, Queue: N symbolic operations on a bounded circular queue
// (enqueue a symbolic value, or dequeue when not empty), then the sum of
// what is left.
#define N 9
#define CAP 8
extern int __VERIFIER_nondet_int(void);

struct queue {
    int items[CAP];
    int head, tail, size;
};

void enqueue(struct queue *q, int x) {
    if (q->size == CAP)
        return;
    q->items[q->tail] = x;
    q->tail = (q->tail + 1) % CAP;
    q->size++;
}

int dequeue(struct queue *q) {
    if (q->size == 0)
        return 0;
    int x = q->items[q->head];
    q->head = (q->head + 1) % CAP;
    q->size--;
    return x;
}

int main(void) {
    struct queue q;
    q.head = q.tail = q.size = 0;
    int taken = 0;
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0)
            enqueue(&q, __VERIFIER_nondet_int());
        else
            taken += dequeue(&q);
    }
    int sum = 0;
    while (q.size > 0)
        sum += dequeue(&q);
    return sum - taken;
}
