// expect: FALSE
// Heap: a singly linked list of nondet length (at most 6) built with
// malloc; its sum reaches a value only a particular list has.
#include <stdlib.h>
extern int __VERIFIER_nondet_int(void);
extern unsigned char __VERIFIER_nondet_uchar(void);
void reach_error(void) {}
struct node {
  int value;
  struct node *next;
};
int main(void) {
  struct node *head = 0;
  int n = 0;
  while (n < 6 && __VERIFIER_nondet_int()) {
    struct node *p = malloc(sizeof *p);
    if (!p) abort();
    p->value = __VERIFIER_nondet_uchar();
    p->next = head;
    head = p;
    n++;
  }
  int sum = 0;
  for (struct node *p = head; p; p = p->next) sum += p->value;
  if (n == 3 && sum == 700) {
    reach_error();
    abort();
  }
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return 0;
}
