#!/bin/bash
set -e
cd repo && git add greeting.txt && git commit -q -m 'Fix greeting typo'
