#!/bin/bash
set -e
tar -xzOf bundle.tar.gz --wildcards '*payload.bin' | sha256sum | cut -d' ' -f1 > checksum.txt
