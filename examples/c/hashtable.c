// braid-args:
// An open-addressing hash table in the style of klib's khash: 32-bit keys
// hashed to one of 4 slots under the table's mask, linear probing, and each
// slot's state in two bits of a flags word. The slots a key reaches are
// input-chosen words: read whole (a stored key is that key), the
// exploration asks about the mask's bits, not every byte at every offset.
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

#define SLOTS 4
#define MASK (SLOTS - 1)
#define EMPTY 2u
#define DELETED 1u

static unsigned flags = 0xaa; /* every slot empty */
static int keys[SLOTS], vals[SLOTS];

static unsigned state(unsigned i) { return (flags >> ((i & MASK) << 1)) & 3u; }
static void set_state(unsigned i, unsigned s) {
  flags = (flags & ~(3u << ((i & MASK) << 1))) | (s << ((i & MASK) << 1));
}

/* The slot holding `key`, or SLOTS. */
static unsigned get(int key) {
  unsigned i = (unsigned)key & MASK;
  for (unsigned step = 0; step < SLOTS; step++, i = (i + 1) & MASK) {
    if (state(i) & EMPTY) return SLOTS;
    if (!(state(i) & DELETED) && keys[i] == key) return i;
  }
  return SLOTS;
}

/* Puts `key` (replacing its value if present); 0 when the table is full. */
static int put(int key, int val) {
  unsigned at = get(key);
  if (at == SLOTS) {
    unsigned i = (unsigned)key & MASK;
    for (unsigned step = 0; step < SLOTS; step++, i = (i + 1) & MASK)
      if (state(i) != 0) {
        at = i;
        break;
      }
    if (at == SLOTS) return 0;
    keys[at] = key;
    set_state(at, 0);
  }
  vals[at] = val;
  return 1;
}

int main(void) {
  for (int n = 0; n < 2; n++) {
    int key = __VERIFIER_nondet_int();
    if (__VERIFIER_nondet_int() & 1) {
      if (put(key, n) && vals[get(key)] != n) reach_error();
    } else {
      unsigned at = get(key);
      if (at != SLOTS) set_state(at, DELETED);
      if (get(key) != SLOTS) reach_error();
    }
  }
  return get(__VERIFIER_nondet_int()) != SLOTS;
}
