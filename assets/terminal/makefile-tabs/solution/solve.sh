#!/bin/bash
set -e
sed -i 's/^    /\t/' Makefile && make -s
