#!/bin/bash
set -e
find conf -type f -name '*.conf' -exec sed -i 's/db-old\.internal/db-new.internal/g' {} +
