#!/bin/bash
set -e
find photos -type f -name '*.jpeg' | while IFS= read -r f; do mv "$f" "${f%.jpeg}.jpg"; done
