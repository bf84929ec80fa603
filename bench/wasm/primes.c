// Compute-heavy and input-free: count the primes below N by trial
// division (bench/wasm/concrete.sh).
#ifndef N
#define N 200000
#endif
int main(void) {
  int count = 0;
  for (int n = 2; n < N; n++) {
    int prime = 1;
    for (int d = 2; d * d <= n; d++)
      if (n % d == 0) { prime = 0; break; }
    count += prime;
  }
  return count;
}
