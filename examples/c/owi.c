// braid-args:
// Owi/WASP convention: symbolic values and checks imported from module
// `symbolic`. abs(INT_MIN) is negative, so the assertion fails.
__attribute__((import_module("symbolic"), import_name("i32_symbol"))) int i32_symbol(void);
__attribute__((import_module("symbolic"), import_name("assume"))) void assume(int);
__attribute__((import_module("symbolic"), import_name("assert"))) void owi_assert(int);

static int abs_value(int x) { return x < 0 ? -x : x; }

int main(void) {
  int x = i32_symbol();
  assume(x != 0);
  owi_assert(abs_value(x) > 0);
  return 0;
}
