// braid-args:
// An INI reader in the style of small C configuration libraries: lines split
// on '\n', comments (';' or '#'), "[section]" headers, "name = value" pairs
// with whitespace trimmed and inline comments cut, a callback per pair that
// may reject it, and the number of the first bad line as the result. The
// harness feeds 16 symbolic bytes, so exploration does not finish.
#define LEN 16
#define MAX_LINE 12
#define MAX_SECTION 8
extern void klee_make_symbolic(void *, unsigned long, const char *);

static int blank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

static char *skip_blanks(char *s) {
    while (*s && blank(*s))
        s++;
    return s;
}

/* Cuts trailing blanks in place; `s` is the line's first character. */
static void trim_end(char *s) {
    char *e = s;
    while (*e)
        e++;
    while (e > s && blank(e[-1]))
        *--e = 0;
}

/* The first of `chars` in `s`, or its end; an inline comment needs a blank before it. */
static char *find(char *s, char a, char b) {
    int was_blank = 0;
    while (*s && *s != a && *s != b && !(was_blank && *s == ';')) {
        was_blank = blank(*s);
        s++;
    }
    return s;
}

static void copy(char *dst, const char *src, int max) {
    int i = 0;
    for (; i < max - 1 && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

struct stats {
    int sections, pairs, empty_values;
    char section[MAX_SECTION];
};

static int on_pair(struct stats *st, const char *section, const char *name, const char *value) {
    st->pairs++;
    if (!*value)
        st->empty_values++;
    /* Names starting with a digit are rejected, as some readers do. */
    return !(name[0] >= '0' && name[0] <= '9') && section[0] != '!';
}

int parse(const char *text, int len, struct stats *st) {
    char line[MAX_LINE + 1];
    int lineno = 0, error = 0, pos = 0;
    st->section[0] = 0;
    while (pos < len && text[pos]) {
        int n = 0;
        while (pos < len && text[pos] && text[pos] != '\n') {
            if (n < MAX_LINE)
                line[n++] = text[pos];
            pos++;
        }
        if (pos < len && text[pos] == '\n')
            pos++;
        line[n] = 0;
        lineno++;
        char *s = skip_blanks(line);
        trim_end(s);
        if (*s == ';' || *s == '#' || *s == 0)
            continue;
        if (*s == '[') {
            char *end = find(s + 1, ']', ']');
            if (*end == ']') {
                *end = 0;
                copy(st->section, s + 1, MAX_SECTION);
                st->sections++;
            } else if (!error) {
                error = lineno;
            }
            continue;
        }
        char *eq = find(s, '=', ':');
        if (*eq != '=' && *eq != ':') {
            if (!error)
                error = lineno;
            continue;
        }
        *eq = 0;
        trim_end(s);
        char *value = skip_blanks(eq + 1);
        char *comment = find(value, ';', ';');
        *comment = 0;
        trim_end(value);
        if (!on_pair(st, st->section, s, value) && !error)
            error = lineno;
    }
    return error;
}

int main(void) {
    char buf[LEN];
    klee_make_symbolic(buf, sizeof buf, "ini");
    struct stats st = {0, 0, 0, {0}};
    int error = parse(buf, LEN, &st);
    if (error)
        return -error;
    return st.sections * 100 + st.pairs * 10 + st.empty_values;
}
