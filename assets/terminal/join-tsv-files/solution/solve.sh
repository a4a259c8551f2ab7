#!/bin/bash
set -e
join -t $'\t' <(sort -k1,1 people.tsv) <(sort -k1,1 scores.tsv) | awk -F'\t' -v OFS='\t' '{print $2, $3}' | sort -t $'\t' -k2,2nr -k1,1 > joined.tsv
