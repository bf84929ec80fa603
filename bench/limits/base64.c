// braid-args:
// A base64 decoder in the style of codec libraries: a reverse alphabet
// table, four characters to three bytes, '=' padding only at the end,
// whitespace skipped, and a checksum of what was decoded. 12 symbolic bytes.
#define LEN 12
extern void klee_make_symbolic(void *, unsigned long, const char *);

static signed char reverse[256];

static void init_table(void) {
    const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 256; i++)
        reverse[i] = -1;
    for (int i = 0; i < 64; i++)
        reverse[(unsigned char)alphabet[i]] = (signed char)i;
}

/* Decodes `in` into `out`; the number of bytes, or -1 on bad input. */
int decode(const unsigned char *in, int len, unsigned char *out) {
    unsigned quad = 0;
    int have = 0, n = 0, pad = 0;
    for (int i = 0; i < len; i++) {
        unsigned char c = in[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c == '=') {
            pad++;
            if (pad > 2 || have < 2)
                return -1;
            continue;
        }
        if (pad)
            return -1; /* data after padding */
        int v = reverse[c];
        if (v < 0)
            return -1;
        quad = (quad << 6) | (unsigned)v;
        if (++have == 4) {
            out[n++] = (unsigned char)(quad >> 16);
            out[n++] = (unsigned char)(quad >> 8);
            out[n++] = (unsigned char)quad;
            quad = 0;
            have = 0;
        }
    }
    if (have == 1)
        return -1;
    if (have == 2 && pad != 2 && pad != 0)
        return -1;
    if (have == 3 && pad > 1)
        return -1;
    if (have >= 2)
        out[n++] = (unsigned char)(quad >> (have == 2 ? 4 : 10));
    if (have == 3)
        out[n++] = (unsigned char)(quad >> 2);
    return n;
}

int main(void) {
    unsigned char buf[LEN], out[LEN];
    klee_make_symbolic(buf, sizeof buf, "base64");
    init_table();
    int n = decode(buf, LEN, out);
    if (n <= 0)
        return n;
    unsigned sum = 0;
    for (int i = 0; i < n; i++)
        sum = sum * 31 + out[i];
    return (int)(sum & 0xffff);
}
