#!/bin/bash
set -e
cat > config.json <<'EOF'
{"name": "shop", "port": 8080, "mode": "prod", "workers": 4}
EOF
