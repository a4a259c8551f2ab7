#!/bin/bash
set -e
cd repo && git checkout HEAD~1 -- config/settings.yaml && git commit -q -m 'Restore settings'
