// braid-args:
// A JSON tokenizer in the style of small embeddable C libraries: a parser
// state over a caller-provided token array, strings with escapes, numbers,
// literals and nested containers with a parent link per token. The harness
// tokenizes 16 symbolic bytes, so exploration does not finish.
#define LEN 16
#define TOKENS 8
extern void klee_make_symbolic(void *, unsigned long, const char *);

enum kind { UNDEFINED, OBJECT, ARRAY, STRING, PRIMITIVE };
enum { ERR_NOMEM = -1, ERR_INVAL = -2, ERR_PART = -3 };

struct token {
    enum kind kind;
    int start, end, size, parent;
};

struct parser {
    unsigned pos;
    int next, super;
};

static struct token *new_token(struct parser *p, struct token *toks, int n) {
    if (p->next >= n)
        return 0;
    struct token *t = &toks[p->next++];
    t->start = t->end = -1;
    t->size = 0;
    t->parent = -1;
    t->kind = UNDEFINED;
    return t;
}

static int is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int parse_primitive(struct parser *p, const char *js, unsigned len, struct token *toks, int n) {
    int start = p->pos;
    for (; p->pos < len && js[p->pos]; p->pos++) {
        char c = js[p->pos];
        if (c == ':' || c == '\t' || c == '\r' || c == '\n' || c == ' ' || c == ',' || c == ']' || c == '}')
            break;
        if (c < 32 || c >= 127) {
            p->pos = start;
            return ERR_INVAL;
        }
    }
    struct token *t = new_token(p, toks, n);
    if (!t) {
        p->pos = start;
        return ERR_NOMEM;
    }
    t->kind = PRIMITIVE;
    t->start = start;
    t->end = p->pos;
    t->parent = p->super;
    p->pos--;
    return 0;
}

static int parse_string(struct parser *p, const char *js, unsigned len, struct token *toks, int n) {
    int start = p->pos++;
    for (; p->pos < len && js[p->pos]; p->pos++) {
        char c = js[p->pos];
        if (c == '"') {
            struct token *t = new_token(p, toks, n);
            if (!t) {
                p->pos = start;
                return ERR_NOMEM;
            }
            t->kind = STRING;
            t->start = start + 1;
            t->end = p->pos;
            t->parent = p->super;
            return 0;
        }
        if (c == '\\' && p->pos + 1 < len) {
            p->pos++;
            switch (js[p->pos]) {
            case '"': case '/': case '\\': case 'b': case 'f': case 'r': case 'n': case 't':
                break;
            case 'u':
                p->pos++;
                for (int i = 0; i < 4 && p->pos < len && js[p->pos]; i++, p->pos++) {
                    if (!is_hex(js[p->pos])) {
                        p->pos = start;
                        return ERR_INVAL;
                    }
                }
                p->pos--;
                break;
            default:
                p->pos = start;
                return ERR_INVAL;
            }
        }
    }
    p->pos = start;
    return ERR_PART;
}

int tokenize(struct parser *p, const char *js, unsigned len, struct token *toks, int n) {
    int count = p->next;
    for (; p->pos < len && js[p->pos]; p->pos++) {
        char c = js[p->pos];
        struct token *t;
        int r;
        switch (c) {
        case '{': case '[':
            count++;
            t = new_token(p, toks, n);
            if (!t)
                return ERR_NOMEM;
            if (p->super != -1)
                toks[p->super].size++;
            t->kind = c == '{' ? OBJECT : ARRAY;
            t->start = p->pos;
            t->parent = p->super;
            p->super = p->next - 1;
            break;
        case '}': case ']': {
            enum kind want = c == '}' ? OBJECT : ARRAY;
            if (p->next < 1)
                return ERR_INVAL;
            t = &toks[p->next - 1];
            for (;;) {
                if (t->start != -1 && t->end == -1) {
                    if (t->kind != want)
                        return ERR_INVAL;
                    t->end = p->pos + 1;
                    p->super = t->parent;
                    break;
                }
                if (t->parent == -1) {
                    if (t->kind != want || p->super == -1)
                        return ERR_INVAL;
                    break;
                }
                t = &toks[t->parent];
            }
            break;
        }
        case '"':
            r = parse_string(p, js, len, toks, n);
            if (r < 0)
                return r;
            count++;
            if (p->super != -1)
                toks[p->super].size++;
            break;
        case '\t': case '\r': case '\n': case ' ':
            break;
        case ':':
            p->super = p->next - 1;
            break;
        case ',':
            if (p->super != -1 && toks[p->super].kind != ARRAY && toks[p->super].kind != OBJECT)
                p->super = toks[p->super].parent;
            break;
        case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        case 't': case 'f': case 'n':
            if (p->super != -1) {
                struct token *s = &toks[p->super];
                if (s->kind == OBJECT || (s->kind == STRING && s->size != 0))
                    return ERR_INVAL;
            }
            r = parse_primitive(p, js, len, toks, n);
            if (r < 0)
                return r;
            count++;
            if (p->super != -1)
                toks[p->super].size++;
            break;
        default:
            return ERR_INVAL;
        }
    }
    for (int i = p->next - 1; i >= 0; i--)
        if (toks[i].start != -1 && toks[i].end == -1)
            return ERR_PART;
    return count;
}

int main(void) {
    char buf[LEN];
    klee_make_symbolic(buf, sizeof buf, "json");
    struct parser p = {0, 0, -1};
    struct token toks[TOKENS];
    int r = tokenize(&p, buf, LEN, toks, TOKENS);
    if (r > 1 && toks[0].kind == OBJECT && toks[1].kind == STRING)
        return 100 + toks[0].size;
    return r;
}
