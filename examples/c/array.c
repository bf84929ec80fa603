// braid-args:
// An array indexed by input: a load through a symbolic address.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

int main(void) {
  int i = __VERIFIER_nondet_int();
  if (i < 0 || i >= 8) return 0;
  if (table[i] == 9) reach_error();
  return table[i];
}
