// Floating point: the real roots of a*x^2 + b*x + c, with the cases a
// numerical routine distinguishes (degenerate, double root, a root in
// [0, 1], roots of opposite signs).
#include "braid.h"

int main(void) {
  double a = __VERIFIER_nondet_double(), b = __VERIFIER_nondet_double(), c = __VERIFIER_nondet_double();
  if (a != a || b != b || c != c) return 1;               /* NaN */
  if (a < -1e3 || a > 1e3 || b < -1e3 || b > 1e3 || c < -1e3 || c > 1e3) return 2;
  if (a == 0) {
    if (b == 0) return c == 0 ? 3 : 4;
    double x = -c / b;
    return x >= 0 && x <= 1 ? 5 : 6;
  }
  double d = b * b - 4 * a * c;
  if (d < 0) return 7;
  if (d == 0) {
    double x = -b / (2 * a);
    return x >= 0 && x <= 1 ? 8 : 9;
  }
  if (a * c < 0) return 10;                              /* roots of opposite signs */
  double x1 = (-b + d / 4) / (2 * a);                    /* a rough first estimate */
  if (x1 > 0 && x1 < 1) return 11;
  if (b > 0 && a > 0) return 12;                         /* both roots negative */
  return 13;
}
