// braid-args:
// Table 1, PL/0 Parser: Wirth's PL/0 grammar (const and var declarations,
// procedures, assignment, call, read (?) and write (!), begin/end, if,
// while, odd and relational conditions, expressions) parsed by recursive
// descent from N symbolic tokens; returns the number of statements, or -1
// on a syntax error.
#define N 5
extern int __VERIFIER_nondet_int(void);

enum {
    END, IDENT, NUMBER, PLUS, MINUS, TIMES, SLASH, LPAREN, RPAREN, EQL, NEQ, LSS, LEQ, GTR, GEQ,
    COMMA, SEMICOLON, PERIOD, BECOMES, BEGIN, ENDSYM, IF, THEN, WHILE, DO, CALL, CONST, VAR, PROC, ODD,
    QUESTION, BANG, TOKENS
};

static int tokens[N + 1];
static int pos, sym, error, statements;

void next(void) { sym = tokens[pos < N ? pos++ : N]; }

void expect(int s) {
    if (sym == s)
        next();
    else
        error = 1;
}

void expression(void);

void factor(void) {
    if (sym == IDENT || sym == NUMBER) {
        next();
    } else if (sym == LPAREN) {
        next();
        expression();
        expect(RPAREN);
    } else {
        error = 1;
    }
}

void term(void) {
    factor();
    while (!error && (sym == TIMES || sym == SLASH)) {
        next();
        factor();
    }
}

void expression(void) {
    if (sym == PLUS || sym == MINUS)
        next();
    term();
    while (!error && (sym == PLUS || sym == MINUS)) {
        next();
        term();
    }
}

void condition(void) {
    if (sym == ODD) {
        next();
        expression();
        return;
    }
    expression();
    if (error)
        return;
    if (sym == EQL || sym == NEQ || sym == LSS || sym == LEQ || sym == GTR || sym == GEQ) {
        next();
        expression();
    } else {
        error = 1;
    }
}

void statement(void) {
    if (error)
        return;
    statements++;
    if (sym == IDENT) {
        next();
        expect(BECOMES);
        if (!error)
            expression();
    } else if (sym == CALL || sym == QUESTION) {
        next();
        expect(IDENT);
    } else if (sym == BANG) {
        next();
        expression();
    } else if (sym == BEGIN) {
        next();
        statement();
        while (!error && sym == SEMICOLON) {
            next();
            statement();
        }
        if (!error)
            expect(ENDSYM);
    } else if (sym == IF) {
        next();
        condition();
        if (!error)
            expect(THEN);
        statement();
    } else if (sym == WHILE) {
        next();
        condition();
        if (!error)
            expect(DO);
        statement();
    } else {
        statements--;
    }
}

void block(void) {
    if (sym == CONST) {
        do {
            next();
            expect(IDENT);
            expect(EQL);
            expect(NUMBER);
        } while (!error && sym == COMMA);
        expect(SEMICOLON);
    }
    if (!error && sym == VAR) {
        do {
            next();
            expect(IDENT);
        } while (!error && sym == COMMA);
        expect(SEMICOLON);
    }
    while (!error && sym == PROC) {
        next();
        expect(IDENT);
        expect(SEMICOLON);
        block();
        expect(SEMICOLON);
    }
    statement();
}

int main(void) {
    for (int i = 0; i < N; i++)
        tokens[i] = __VERIFIER_nondet_int();
    tokens[N] = END;
    pos = 0;
    error = 0;
    statements = 0;
    next();
    block();
    expect(PERIOD);
    return error ? -1 : statements;
}
