// braid-args:
// Table 1, Queue: N symbolic operations on a bounded circular queue
// (enqueue a symbolic value, or dequeue when not empty); every step checks
// the ring's indices, and the result is the front and the size.
#define N 13
#define CAP 8
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

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
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0)
            enqueue(&q, __VERIFIER_nondet_int());
        else
            dequeue(&q);
        if ((q.head + q.size) % CAP != q.tail)
            reach_error();
    }
    int front = q.size > 0 ? q.items[q.head] : 0;
    return front + q.size;
}
