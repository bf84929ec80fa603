// braid-args:
// A string library's two passes over one buffer, in the style of sds:
// split on ',' and ';' into fields (start and length of each), then quote
// every byte as a C literal would (escapes for quotes, backslashes and
// control characters, \xHH for the unprintable). Each byte is read by
// both passes: its predicates come in two phases.
extern void klee_make_symbolic(void *, unsigned long, const char *);
extern void reach_error(void);

#ifndef N
#define N 3
#endif

static int starts[N + 1], lens[N + 1];
static char out[4 * N + 2];

static int split(const char *s, int n) {
    int fields = 0, start = 0;
    for (int j = 0; j < n; j++) {
        if (s[j] == ',' || s[j] == ';') {
            starts[fields] = start;
            lens[fields] = j - start;
            fields++;
            start = j + 1;
        }
    }
    starts[fields] = start;
    lens[fields] = n - start;
    return fields + 1;
}

static int hex(int v) { return v < 10 ? '0' + v : 'a' + v - 10; }

static int quote(const char *s, int n) {
    int o = 0;
    out[o++] = '"';
    for (int j = 0; j < n; j++) {
        char c = s[j];
        switch (c) {
        case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
        case '"': out[o++] = '\\'; out[o++] = '"'; break;
        case '\n': out[o++] = '\\'; out[o++] = 'n'; break;
        case '\r': out[o++] = '\\'; out[o++] = 'r'; break;
        case '\t': out[o++] = '\\'; out[o++] = 't'; break;
        case '\a': out[o++] = '\\'; out[o++] = 'a'; break;
        case '\b': out[o++] = '\\'; out[o++] = 'b'; break;
        default:
            if (c >= 32 && c < 127) {
                out[o++] = c;
            } else {
                out[o++] = 'x';
                out[o++] = hex((c >> 4) & 15);
                out[o++] = hex(c & 15);
            }
        }
    }
    out[o++] = '"';
    return o;
}

int main(void) {
    char buf[N];
    klee_make_symbolic(buf, N, "buf");
    int fields = split(buf, N);
    int len = quote(buf, N);
    // Every field fits in the quoted text, which is never shorter than the input.
    if (len < N + 2)
        reach_error();
    int total = 0;
    for (int f = 0; f < fields; f++)
        total += lens[f];
    if (total + fields - 1 != N)
        reach_error();
    return fields == 2 && lens[1] == 1 ? 7 : len;
}
