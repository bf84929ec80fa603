// A bytecode verifier in the style of small VMs' loaders: a header, a
// constant pool size, then instructions whose operands must name valid
// constants, locals and jump targets, with the stack depth tracked.
// braid-args: --seed-input bench/muse/bytecode.seed
#include "braid.h"
#define LEN 20
enum { PUSH = 1, LOAD, STORE, ADD, JMP, JZ, RET };

int main(void) {
  unsigned char c[LEN];
  klee_make_symbolic(c, sizeof c, "code");
  if (c[0] != 0xBC || c[1] != 1) return 1;
  unsigned consts = c[2], locals = c[3], length = c[4];
  if (consts > 8 || locals > 8) return 2;
  if (length == 0 || 5 + length > LEN) return 3;
  int depth = 0, max = 0;
  for (unsigned pc = 5; pc < 5 + length;) {
    unsigned op = c[pc];
    switch (op) {
    case PUSH: if (pc + 1 >= 5 + length || c[pc + 1] >= consts) return 4; depth++; pc += 2; break;
    case LOAD: if (pc + 1 >= 5 + length || c[pc + 1] >= locals) return 5; depth++; pc += 2; break;
    case STORE: if (pc + 1 >= 5 + length || c[pc + 1] >= locals) return 6; if (--depth < 0) return 7; pc += 2; break;
    case ADD: if (depth < 2) return 8; depth--; pc += 1; break;
    case JMP: case JZ:
      if (pc + 1 >= 5 + length) return 9;
      if (c[pc + 1] >= length) return 10;
      if (op == JZ && --depth < 0) return 11;
      pc += 2; break;
    case RET: if (depth != 1) return 12; return max > 4 ? 13 : 0;
    default: return 14;
    }
    if (depth > max) max = depth;
  }
  return 15;
}
