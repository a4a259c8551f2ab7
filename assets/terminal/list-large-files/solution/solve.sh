#!/bin/bash
set -e
find data -type f -size +10240c | sort > large.txt
