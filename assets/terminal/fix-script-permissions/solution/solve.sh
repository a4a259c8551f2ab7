#!/bin/bash
set -e
chmod u+x bin/*.sh && chmod 600 secrets.env
