// braid-args:
// A function-pointer dispatch: call_indirect through the table. Operation
// 3 divides, and the divisor can be zero.
extern int __VERIFIER_nondet_int(void);

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int quo(int a, int b) { return a / b; }

static int (*const ops[4])(int, int) = {add, sub, mul, quo};

int main(void) {
  int op = __VERIFIER_nondet_int();
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (op < 0 || op > 3) return 0;
  return ops[op](a, b);
}
