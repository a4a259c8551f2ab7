#include <stdio.h>
int main(void) { puts("hello, sandbox"); return 0; }
