// braid-args:
// KLEE conventions: exit(code) ends the path with its code; abort() is a
// bug. main(argc, argv) is exported as __main_argc_argv.
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void exit(int);
extern void abort(void);

int main(int argc, char **argv) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (x == 7) exit(3);
  if (x == 9) abort();
  return argc;
}
