#!/bin/bash
set -e
sed -i 's/long total = 0$/long total = 0;/' sum.c && make -s
