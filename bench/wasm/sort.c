// Memory-heavy and input-free: insertion sort of N pseudo-random numbers
// (a linear congruential generator), then a checksum of the sorted array
// (bench/wasm/concrete.sh).
#ifndef N
#define N 6000
#endif
static unsigned data[N];

int main(void) {
  unsigned x = 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    data[i] = x >> 8;
  }
  for (int i = 1; i < N; i++) {
    unsigned v = data[i];
    int j = i - 1;
    while (j >= 0 && data[j] > v) {
      data[j + 1] = data[j];
      j--;
    }
    data[j + 1] = v;
  }
  unsigned sum = 0;
  for (int i = 0; i < N; i++)
    sum = sum * 31 + data[i];
  return (int)(sum & 0x7fffffff);
}
