// braid-args:
// Floating point: an int scaled by a float and converted back.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int x = __VERIFIER_nondet_int();
  float f = x * 0.5f;
  if (f > 10.25f && f < 11.0f) reach_error();
  return (int)(f * 4.0f);
}
