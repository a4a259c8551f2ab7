#!/bin/bash
# Copies every file of src/ into backup/, keeping names.
mkdir -p backup
for f in $(ls src); do
    cp src/$f backup/$f
done
