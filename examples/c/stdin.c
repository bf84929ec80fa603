// braid-args: --sym-stdin 4
// Reads a command from stdin (WASI): "go" prints a greeting, "quit" exits
// with status 3, anything else prints an error to stderr and exits with 1.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
    char buf[8] = {0};
    ssize_t n = read(0, buf, 4);
    if (n >= 2 && buf[0] == 'g' && buf[1] == 'o') {
        write(1, "hello\n", 6);
        return 0;
    }
    if (n == 4 && memcmp(buf, "quit", 4) == 0)
        exit(3);
    write(2, "unknown command\n", 16);
    return 1;
}
