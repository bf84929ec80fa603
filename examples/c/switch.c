// braid-args:
// A dense switch, lowered to br_table: a computed jump.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int day = __VERIFIER_nondet_int();
  int hours = 0;
  switch (day) {
  case 0: hours = 0; break;
  case 1: hours = 8; break;
  case 2: hours = 8; break;
  case 3: hours = 9; break;
  case 4: hours = 7; break;
  case 5: hours = 4; break;
  case 6: hours = 0; break;
  default: hours = -1; break;
  }
  if (hours == 9) reach_error();
  return hours;
}
