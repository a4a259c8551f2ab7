#!/bin/bash
set -e
cd repo && git merge --no-ff -q -m 'Merge feature' feature
