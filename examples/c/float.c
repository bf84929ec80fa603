// braid-args:
// Floating point: an int scaled by a double, rounded and converted back.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  double d = x * 0.5;
  if (d > 10.25 && d < 11.0) reach_error();
  float f = (float)d;
  return (int)__builtin_floorf(f);
}
