#!/usr/bin/env bash
# One idempotent set-up for a fresh Debian machine (README, "Set up"): system packages,
# a running Docker engine, and .venv with codegym and all its extras installed.
# Safe to run again: every step checks first and does only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBS=(bubblewrap docker.io chromium chromium-headless-shell poppler-utils texlive-latex-base texlive-latex-extra
      texlive-pictures python3-venv python3-dev g++ rustc git patch iptables)
missing=()
for pkg in "${DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Docker engine: started here because nothing else on these machines starts it.
docker_ok() { timeout 20 docker info >/dev/null 2>&1; }
start_dockerd() {
    nohup dockerd >/var/log/codegym-dockerd.log 2>&1 &
    for _ in $(seq 60); do docker_ok && return 0; sleep 1; done
    return 1
}
if ! docker_ok; then
    # Not running, or hung: a dockerd killed without cleanup leaves its pid file behind.
    echo "setup: (re)starting dockerd"
    pkill -x dockerd 2>/dev/null || true
    for _ in $(seq 10); do pgrep -x dockerd >/dev/null || break; sleep 1; done
    pkill -9 -x dockerd 2>/dev/null || true; pkill -9 -x containerd 2>/dev/null || true; sleep 1
    rm -f /var/run/docker.pid /var/run/docker/containerd/containerd.pid
    start_dockerd || { echo "setup: dockerd did not start, see /var/log/codegym-dockerd.log" >&2; exit 1; }
fi

# The venv is made from Debian's python3 on purpose: the local sandbox binds the
# interpreter read-only for an unprivileged uid, which cannot enter a private prefix
# such as /root/.pyenv.
if [ ! -x .venv/bin/python ]; then
    /usr/bin/python3 -m venv .venv
fi
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1   # Chromium comes from Debian, never a download
find_links=()
[ -d /opt/wheels ] && find_links=(--find-links /opt/wheels)   # the torch CPU wheel on disk
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q "${find_links[@]}" -e ".[all]"
# WebApp-v0's React path: esbuild and React 18 (UMD builds, served locally) from npm, in a
# cache folder outside the repo (envs/webapp/react.py reads CODEGYM_NPM_DIR, same default).
NPM_DIR="${CODEGYM_NPM_DIR:-$HOME/.cache/codegym/npm}"
if [ ! -x "$NPM_DIR/node_modules/.bin/esbuild" ] || [ ! -f "$NPM_DIR/node_modules/react-dom/umd/react-dom.production.min.js" ]; then
    echo "setup: installing esbuild and React into $NPM_DIR"
    mkdir -p "$NPM_DIR"
    (cd "$NPM_DIR" && npm install --no-audit --no-fund --silent esbuild@0.24.2 react@18.3.1 react-dom@18.3.1 >/dev/null)
fi
echo "setup: done (.venv ready; run 'codegym doctor' to check every part)"
