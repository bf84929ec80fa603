// braid-args:
// An unbounded input loop, as in command-line filters: characters are read
// one at a time until a zero, counting lines, words and the longest word,
// with a small state machine for quoted strings. Every length of input is
// a path: exploration never ends.
extern char __VERIFIER_nondet_char(void);

int main(void) {
    int lines = 0, words = 0, longest = 0, current = 0, quoted = 0;
    for (;;) {
        char c = __VERIFIER_nondet_char();
        if (c == 0)
            break;
        if (c == '"') {
            quoted = !quoted;
            continue;
        }
        if (c == '\n')
            lines++;
        if (!quoted && (c == ' ' || c == '\n' || c == '\t')) {
            if (current > 0)
                words++;
            if (current > longest)
                longest = current;
            current = 0;
        } else {
            current++;
        }
    }
    if (current > 0)
        words++;
    if (current > longest)
        longest = current;
    return quoted ? -1 : lines * 10000 + words * 100 + longest;
}
