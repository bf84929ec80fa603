// expect: TRUE
// ECA (RERS style): the same kind of reactive system, whose error
// conditions name state combinations the rules never make. The event loop
// never ends; its state is finite (a proof needs loop-head merging).
extern int __VERIFIER_nondet_int(void);
extern void abort(void);
void reach_error(void) {}
int a1 = 1, a4 = 1, a7 = 0;
int calculate_output(int input) {
  if (a1 == 2 && a4 == 2) {
  error_1:
    reach_error();
    abort();
  }
  if (a7 == 1 && a1 != 3) {
  error_2:
    reach_error();
    abort();
  }
  if (a1 == 1 && input == 2) { a1 = 2; return 21; }
  if (a1 == 2 && input == 3) { a1 = 3; a4 = 2; return 22; }
  if (a1 == 3 && input == 1) { a7 = 1; return 23; }
  if (a1 == 3 && input == 5) { a1 = 1; a4 = 1; a7 = 0; return 25; }
  return -2;
}
int main(void) {
  while (1) {
    int input = __VERIFIER_nondet_int();
    if (input != 1 && input != 2 && input != 3 && input != 4 && input != 5) return -2;
    calculate_output(input);
  }
}
