// expect: TRUE
// Locks (SV-COMP's test_locks style): five flags taken and released in a
// loop that runs as long as the environment says; every release finds its
// lock taken. The loop never ends on its own: a proof needs loop-head
// merging (its state is finite).
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
int main(void) {
  int p1 = __VERIFIER_nondet_int(), lk1;
  int p2 = __VERIFIER_nondet_int(), lk2;
  int p3 = __VERIFIER_nondet_int(), lk3;
  int p4 = __VERIFIER_nondet_int(), lk4;
  int p5 = __VERIFIER_nondet_int(), lk5;
  int cond;
  while (1) {
    cond = __VERIFIER_nondet_int();
    if (cond == 0) goto out;
    lk1 = 0; lk2 = 0; lk3 = 0; lk4 = 0; lk5 = 0;
    if (p1 != 0) lk1 = 1;
    if (p2 != 0) lk2 = 1;
    if (p3 != 0) lk3 = 1;
    if (p4 != 0) lk4 = 1;
    if (p5 != 0) lk5 = 1;
    if (p1 != 0) { if (lk1 != 1) goto ERROR; lk1 = 0; }
    if (p2 != 0) { if (lk2 != 1) goto ERROR; lk2 = 0; }
    if (p3 != 0) { if (lk3 != 1) goto ERROR; lk3 = 0; }
    if (p4 != 0) { if (lk4 != 1) goto ERROR; lk4 = 0; }
    if (p5 != 0) { if (lk5 != 1) goto ERROR; lk5 = 0; }
  }
out:
  return 0;
ERROR: {
  reach_error();
  abort();
}
  return 0;
}
