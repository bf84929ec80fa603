// braid-args: --sym-args 2 2
// An echo: prints its arguments separated by spaces, then a newline unless
// the first argument is -n. Built against wasi-libc; run with --sym-args.
#include <string.h>
#include <unistd.h>

static void put(const char *s, size_t n) { write(1, s, n); }

int main(int argc, char **argv) {
    int newline = 1;
    int i = 1;
    if (argc > 1 && strcmp(argv[1], "-n") == 0) {
        newline = 0;
        i = 2;
    }
    for (int first = i; i < argc; i++) {
        if (i > first)
            put(" ", 1);
        put(argv[i], strlen(argv[i]));
    }
    if (newline)
        put("\n", 1);
    return 0;
}
