// braid-args:
// Table 1, Calc Parser: a recursive-descent parser and evaluator for
// arithmetic over N symbolic characters (digits, + - * / and parentheses);
// returns the value, or -1 on a syntax error or a division by zero.
#define N 7
extern char __VERIFIER_nondet_char(void);

static char input[N + 1];
static int pos;
static int error;

int expr(void);

int factor(void) {
    char c = input[pos];
    if (c >= '0' && c <= '9') {
        pos++;
        return c - '0';
    }
    if (c == '(') {
        pos++;
        int v = expr();
        if (input[pos] != ')') {
            error = 1;
            return 0;
        }
        pos++;
        return v;
    }
    if (c == '-') {
        pos++;
        return -factor();
    }
    error = 1;
    return 0;
}

int term(void) {
    int v = factor();
    while (!error && (input[pos] == '*' || input[pos] == '/')) {
        char op = input[pos++];
        int r = factor();
        if (op == '*')
            v = v * r;
        else if (r == 0)
            error = 1;
        else
            v = v / r;
    }
    return v;
}

int expr(void) {
    int v = term();
    while (!error && (input[pos] == '+' || input[pos] == '-')) {
        char op = input[pos++];
        int r = term();
        v = op == '+' ? v + r : v - r;
    }
    return v;
}

int main(void) {
    for (int i = 0; i < N; i++)
        input[i] = __VERIFIER_nondet_char();
    input[N] = 0;
    pos = 0;
    error = 0;
    int v = expr();
    if (error || input[pos] != 0)
        return -1;
    return v;
}
