#!/usr/bin/env bash
# README's test command: set up everything on this machine, then run the test suite.
# Extra arguments go to pytest (e.g. `-m slow` for the slow suites, `-k sandbox`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
