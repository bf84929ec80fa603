// expect: TRUE
// exit() deep in a call chain ends the path; the caller's code after the
// call is never reached with a bad value.
extern int __VERIFIER_nondet_int(void);
extern void exit(int);
extern void abort(void);
void reach_error(void) {}
static int check(int v) {
  if (v < 0) exit(1);
  return v;
}
static int parse(int v) { return check(v) + 1; }
int main(void) {
  int v = __VERIFIER_nondet_int();
  int r = parse(v);
  if (r <= 0 && v != 2147483647) {
    reach_error();
    abort();
  }
  return 0;
}
