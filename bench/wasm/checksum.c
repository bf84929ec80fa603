// Loop-heavy with a few symbolic branches: a packet whose 4 header bytes
// are symbolic is accepted only if its type, length and a checksum over a
// long concrete payload agree. Almost every statement is concrete
// (bench/wasm/concrete.sh measures the engines' statements per second).
extern void klee_make_symbolic(void *, unsigned long, const char *);
#define PAYLOAD 20000
static unsigned char payload[PAYLOAD];

static unsigned sum(const unsigned char *p, int n) {
  unsigned a = 1, b = 0;
  for (int i = 0; i < n; i++) {
    a = (a + p[i]) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}

int main(void) {
  unsigned char hdr[4];
  klee_make_symbolic(hdr, sizeof hdr, "hdr");
  for (int i = 0; i < PAYLOAD; i++)
    payload[i] = (unsigned char)(i * 7 + 3);
  int kind = 0;
  if (hdr[0] == 0x7f) kind = 1;
  else if (hdr[0] == 0x10) kind = 2;
  unsigned c = sum(payload, PAYLOAD);
  if (kind == 1 && hdr[1] == (unsigned char)c) kind = 3;
  if (kind == 2 && hdr[2] > 0x80) c = sum(payload, PAYLOAD / 2);
  if (hdr[3] == (unsigned char)(c >> 8)) return kind + 10;
  return kind;
}
