#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long total = 0
    for (int i = 1; i < argc; i++) {
        total += strtol(argv[i], NULL, 10);
    }
    printf("%ld\n", total);
    return 0;
}
