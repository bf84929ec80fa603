// braid-args:
// A backtracking regular-expression matcher in the style of small C regex
// libraries: '.', '*', '+', '?', '^', '$', escapes ("\d", "\w", "\s") and
// bracket classes with ranges ("[a-c]", "[^x]"). The pattern and the text
// are both symbolic (4 and 6 bytes), so exploration does not finish.
#define PATTERN 4
#define TEXT 6
extern void klee_make_symbolic(void *, unsigned long, const char *);

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int class_escape(char e, char c) {
    switch (e) {
    case 'd': return is_digit(c);
    case 'D': return !is_digit(c);
    case 'w': return is_alpha(c) || is_digit(c) || c == '_';
    case 'W': return !(is_alpha(c) || is_digit(c) || c == '_');
    case 's': return is_space(c);
    case 'S': return !is_space(c);
    default: return e == c;
    }
}

/* The length of the pattern atom at `p` (1 for a plain character). */
static int atom_len(const char *p) {
    if (p[0] == '\\' && p[1])
        return 2;
    if (p[0] == '[') {
        int i = 1;
        if (p[i] == '^')
            i++;
        while (p[i] && p[i] != ']')
            i++;
        return p[i] ? i + 1 : i;
    }
    return 1;
}

static int in_brackets(const char *p, int len, char c) {
    int i = 1, negate = 0, hit = 0;
    if (p[i] == '^') {
        negate = 1;
        i++;
    }
    for (; i < len - 1; i++) {
        if (p[i + 1] == '-' && i + 2 < len - 1) {
            if (c >= p[i] && c <= p[i + 2])
                hit = 1;
            i += 2;
        } else if (p[i] == c) {
            hit = 1;
        }
    }
    return hit != negate;
}

static int atom_matches(const char *p, int len, char c) {
    if (!c)
        return 0;
    if (p[0] == '.')
        return c != '\n';
    if (p[0] == '\\')
        return class_escape(p[1], c);
    if (p[0] == '[')
        return in_brackets(p, len, c);
    return p[0] == c;
}

static int match_here(const char *p, const char *t, int *n);

/* `atom` repeated from `min` times, as often as possible first. */
static int match_repeat(const char *p, int len, int min, const char *rest, const char *t, int *n) {
    int count = 0;
    while (atom_matches(p, len, t[count]))
        count++;
    for (; count >= min; count--) {
        int m = 0;
        if (match_here(rest, t + count, &m)) {
            *n = count + m;
            return 1;
        }
    }
    return 0;
}

static int match_here(const char *p, const char *t, int *n) {
    if (!p[0]) {
        *n = 0;
        return 1;
    }
    if (p[0] == '$' && !p[1]) {
        *n = 0;
        return !t[0];
    }
    int len = atom_len(p);
    char q = p[len];
    if (q == '*')
        return match_repeat(p, len, 0, p + len + 1, t, n);
    if (q == '+')
        return match_repeat(p, len, 1, p + len + 1, t, n);
    if (q == '?') {
        int m = 0;
        if (atom_matches(p, len, t[0]) && match_here(p + len + 1, t + 1, &m)) {
            *n = m + 1;
            return 1;
        }
        return match_here(p + len + 1, t, n);
    }
    if (atom_matches(p, len, t[0])) {
        int m = 0;
        if (match_here(p + len, t + 1, &m)) {
            *n = m + 1;
            return 1;
        }
    }
    return 0;
}

/* Where the first match starts (its length in `n`), or -1. */
int search(const char *p, const char *t, int *n) {
    if (p[0] == '^')
        return match_here(p + 1, t, n) ? 0 : -1;
    int i = 0;
    do {
        if (match_here(p, t + i, n))
            return i;
    } while (t[i++]);
    return -1;
}

int main(void) {
    char pattern[PATTERN + 1], text[TEXT + 1];
    klee_make_symbolic(pattern, PATTERN, "pattern");
    klee_make_symbolic(text, TEXT, "text");
    pattern[PATTERN] = 0;
    text[TEXT] = 0;
    int n = 0;
    int at = search(pattern, text, &n);
    return at < 0 ? -1 : at * 16 + n;
}
