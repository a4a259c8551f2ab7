#!/bin/bash
set -e
jq -r '.[] | select(.active and .age >= 30) | .name' users.json | sort > active.txt
