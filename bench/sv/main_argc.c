// expect: FALSE
// main(int argc, char **argv) is the entry (clang exports it as
// __main_argc_argv); SV-COMP passes no arguments.
#include "braid.h"
int main(int argc, char **argv) {
  (void)argv;
  long v = __VERIFIER_nondet_long();
  if (argc == 0 && v == -77) reach_error();
  return 0;
}
