#!/bin/bash
set -e
sed -i 's/int c, lines = 1;/int c, lines = 0;/' countlines.c && make -s
