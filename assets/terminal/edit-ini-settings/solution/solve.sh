#!/bin/bash
set -e
sed -i '/^\[server\]/,/^\[/ { s/^port = .*/port = 9090/; s/^workers = .*/workers = 8/ }' service.ini
