#!/bin/bash
set -e
sed -i 's/packages = \["tiny_math"\]/packages = ["tinymath"]/' pyproject.toml && pip wheel -q --no-deps --no-build-isolation --no-index . -w dist
