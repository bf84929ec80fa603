// Floating point: a thermostat controller stepped over a few readings,
// with hysteresis, a rate limit and an alarm, in the style of embedded
// control code.
#include "braid.h"
#define STEPS 4

int main(void) {
  float target = __VERIFIER_nondet_float();
  if (!(target >= 15.0f && target <= 28.0f)) return 1;
  float last = target;
  int heating = 0, alarms = 0, switches = 0;
  for (int i = 0; i < STEPS; i++) {
    float t = __VERIFIER_nondet_float();
    if (!(t > -40.0f && t < 60.0f)) return 2;
    float rate = t - last;
    if (rate > 5.0f || rate < -5.0f) alarms++;             /* implausible jump */
    last = t;
    if (!heating && t < target - 0.5f) { heating = 1; switches++; }
    else if (heating && t > target + 0.5f) { heating = 0; switches++; }
    if (t > target + 10.0f) alarms++;
  }
  if (alarms >= 2) return 3;
  if (switches >= 3) return 4;                            /* oscillating */
  return heating ? 5 : 6;
}
