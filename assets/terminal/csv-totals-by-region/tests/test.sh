#!/bin/bash
# Harbor verifier: the share of the checks in test_outputs.py that pass, in /logs/verifier/reward.txt.
# python -P keeps /app (the agent's folder) off sys.path, so nothing there can stand in for pytest;
# no plugin is loaded from entry points (the checks need none, and loading them takes a second).
cd /app
PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 python -P -m pytest -q -p no:cacheprovider --junitxml=/logs/verifier/junit.xml /tests/test_outputs.py
python -P - <<'EOF'
import xml.etree.ElementTree as ET

try:
    root = ET.parse("/logs/verifier/junit.xml").getroot()
    cases = root.iter("testcase")
    results = [not any(c.tag in ("failure", "error", "skipped") for c in case) for case in cases]
except (OSError, ET.ParseError):
    results = []
reward = sum(results) / len(results) if results else 0.0
with open("/logs/verifier/reward.txt", "w") as out:
    out.write(f"{reward:.6g}\n")
EOF
