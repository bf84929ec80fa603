// braid-args:
// Table 1, Linked List: N symbolic operations on a singly linked list
// (nodes from a static free list): push a symbolic value at the front, or
// remove the first node holding a symbolic value; then the list's length
// and its first value.
#define N 8
extern int __VERIFIER_nondet_int(void);

struct node {
    int value;
    struct node *next;
};

static struct node pool[N];
static struct node *free_list;

void push(struct node **list, int value) {
    struct node *n = free_list;
    free_list = n->next;
    n->value = value;
    n->next = *list;
    *list = n;
}

int remove_value(struct node **list, int value) {
    for (struct node **p = list; *p != 0; p = &(*p)->next) {
        if ((*p)->value == value) {
            struct node *n = *p;
            *p = n->next;
            n->next = free_list;
            free_list = n;
            return 1;
        }
    }
    return 0;
}

int main(void) {
    free_list = 0;
    for (int i = 0; i < N; i++) {
        pool[i].next = free_list;
        free_list = &pool[i];
    }
    struct node *list = 0;
    int removed = 0;
    for (int k = 0; k < N; k++) {
        if (__VERIFIER_nondet_int() > 0)
            push(&list, __VERIFIER_nondet_int());
        else
            removed += remove_value(&list, __VERIFIER_nondet_int());
    }
    int length = 0;
    for (struct node *n = list; n != 0; n = n->next)
        length++;
    return (list ? list->value : 0) + length + removed;
}
