// braid-args: --entry classify
// Symbolic parameters of an exported function (--entry).
int classify(int a, int b) {
  if (a > b) {
    if (a - b > 100) return 2;
    return 1;
  }
  if (a == b) return 0;
  return -1;
}
