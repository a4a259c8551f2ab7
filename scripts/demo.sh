#!/usr/bin/env bash
# README's main command: set up everything on this machine, then run the demo
# (make envs, play gold and a broken attempt, train a few learner steps).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/codegym demo "$@"
