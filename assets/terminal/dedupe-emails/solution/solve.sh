#!/bin/bash
set -e
tr 'A-Z' 'a-z' < emails.txt | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | grep -v '^$' | sort -u > unique.txt
