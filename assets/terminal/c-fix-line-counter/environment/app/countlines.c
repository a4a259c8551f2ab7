#include <stdio.h>

/* Prints the number of lines of the file named by argv[1]. */
int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: countlines FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    int c, lines = 1;
    while ((c = fgetc(f)) != EOF) {
        if (c == '\n') lines++;
    }
    fclose(f);
    printf("%d\n", lines);
    return 0;
}
