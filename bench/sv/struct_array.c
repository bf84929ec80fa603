// expect: TRUE
// An array of records indexed by input: each record's fields agree with
// each other, read through one symbolic offset per field.
#include "braid.h"
struct rec { int key; short len; char tag; };
struct rec recs[40];
int main(void) {
  for (int i = 0; i < 40; i++) {
    recs[i].key = i * 7;
    recs[i].len = (short)(i + 1);
    recs[i].tag = (char)('A' + i % 26);
  }
  unsigned i = __VERIFIER_nondet_uint();
  __VERIFIER_assume(i < 40);
  struct rec r = recs[i];
  if (r.key != (r.len - 1) * 7) reach_error();
  if (r.tag < 'A' || r.tag > 'Z') reach_error();
  return 0;
}
