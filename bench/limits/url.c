// braid-args:
// A URL splitter in the style of small HTTP client libraries:
// scheme "://" [userinfo "@"] host [":" port] [path] ["?" query] ["#" fragment],
// with percent-escapes checked, a decimal port range-checked and the scheme
// looked up among known ones. 16 symbolic bytes.
#define LEN 16
extern void klee_make_symbolic(void *, unsigned long, const char *);

struct url {
    int scheme, port;
    int host, host_len, path, path_len, query, fragment, user;
};

static int lower(char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int digit(char c) { return c >= '0' && c <= '9'; }
static int hex(char c) { return digit(c) || (lower(c) >= 'a' && lower(c) <= 'f'); }

/* Known schemes and their default ports. */
static int scheme_of(const char *s, int n, int *port) {
    static const char *names[] = {"http", "https", "ftp", "ws"};
    static const int ports[] = {80, 443, 21, 80};
    for (int k = 0; k < 4; k++) {
        const char *m = names[k];
        int i = 0;
        while (i < n && m[i] && lower(s[i]) == m[i])
            i++;
        if (i == n && !m[i]) {
            *port = ports[k];
            return k;
        }
    }
    return -1;
}

/* Checks percent-escapes in s[from..to); -1 if one is bad. */
static int escapes_ok(const char *s, int from, int to) {
    for (int i = from; i < to; i++) {
        if (s[i] == '%') {
            if (i + 2 >= to || !hex(s[i + 1]) || !hex(s[i + 2]))
                return -1;
            i += 2;
        } else if (s[i] == ' ' || s[i] < 32) {
            return -1;
        }
    }
    return 0;
}

int parse_url(const char *s, int len, struct url *u) {
    int i = 0;
    while (i < len && s[i] && (alpha(s[i]) || (i > 0 && (digit(s[i]) || s[i] == '+'))))
        i++;
    if (i == 0 || i + 3 > len || s[i] != ':' || s[i + 1] != '/' || s[i + 2] != '/')
        return -1;
    u->scheme = scheme_of(s, i, &u->port);
    if (u->scheme < 0)
        return -2;
    i += 3;
    int start = i;
    u->user = -1;
    for (int j = i; j < len && s[j] && s[j] != '/' && s[j] != '?' && s[j] != '#'; j++)
        if (s[j] == '@') {
            u->user = start;
            start = j + 1;
        }
    i = start;
    u->host = i;
    while (i < len && s[i] && s[i] != ':' && s[i] != '/' && s[i] != '?' && s[i] != '#')
        i++;
    u->host_len = i - u->host;
    if (u->host_len == 0)
        return -3;
    if (i < len && s[i] == ':') {
        int port = 0, digits = 0;
        for (i++; i < len && digit(s[i]); i++, digits++) {
            port = port * 10 + (s[i] - '0');
            if (port > 65535)
                return -4;
        }
        if (digits == 0)
            return -4;
        u->port = port;
    }
    u->path = i;
    while (i < len && s[i] && s[i] != '?' && s[i] != '#')
        i++;
    u->path_len = i - u->path;
    if (escapes_ok(s, u->path, i) < 0)
        return -5;
    u->query = u->fragment = -1;
    if (i < len && s[i] == '?') {
        u->query = ++i;
        while (i < len && s[i] && s[i] != '#')
            i++;
        if (escapes_ok(s, u->query, i) < 0)
            return -6;
    }
    if (i < len && s[i] == '#')
        u->fragment = i + 1;
    return 0;
}

int main(void) {
    char buf[LEN];
    klee_make_symbolic(buf, sizeof buf, "url");
    struct url u;
    int r = parse_url(buf, LEN, &u);
    if (r < 0)
        return r;
    return u.scheme * 100000 + u.port + (u.query >= 0) * 70000;
}
