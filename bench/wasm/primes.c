// Compute-heavy and input-free: count the primes below 5000 by trial
// division (bench/wasm/concrete.sh).
int main(void) {
  int count = 0;
  for (int n = 2; n < 5000; n++) {
    int prime = 1;
    for (int d = 2; d * d <= n; d++)
      if (n % d == 0) { prime = 0; break; }
    count += prime;
  }
  return count;
}
