#!/bin/bash
set -e
touch unitconv/__init__.py && sed -i 's/^from convert import convert/from .convert import convert/' unitconv/__main__.py
