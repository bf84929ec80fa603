// Floating point: classify a triangle from three side lengths, as a
// geometry library's validation does (seed 002 §3.4's kind of program).
#include "braid.h"
static double fabs_(double x) { return x < 0 ? -x : x; }
static int close(double a, double b) { return fabs_(a - b) <= 1e-9 * (a + b); }

int main(void) {
  double a = __VERIFIER_nondet_double(), b = __VERIFIER_nondet_double(), c = __VERIFIER_nondet_double();
  if (!(a > 0 && b > 0 && c > 0)) return 1;
  if (a > 1e6 || b > 1e6 || c > 1e6) return 2;
  if (a + b <= c || a + c <= b || b + c <= a) return 3;   /* not a triangle */
  if (close(a, b) && close(b, c)) return 4;               /* equilateral */
  double a2 = a * a, b2 = b * b, c2 = c * c;
  int iso = close(a, b) || close(b, c) || close(a, c);
  if (close(a2 + b2, c2) || close(a2 + c2, b2) || close(b2 + c2, a2)) return iso ? 5 : 6;  /* right */
  if (a2 + b2 < c2 || a2 + c2 < b2 || b2 + c2 < a2) return iso ? 7 : 8;                    /* obtuse */
  double s = (a + b + c) / 2;
  double area2 = s * (s - a) * (s - b) * (s - c);
  if (area2 < 1e-6) return 9;                             /* nearly flat */
  if (area2 > 1e10) return 10;
  return iso ? 11 : 12;
}
