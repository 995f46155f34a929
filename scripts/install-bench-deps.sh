#!/usr/bin/env bash
# Installs what the benchmark's PESQ figures need: espeak-ng (Debian) and the pesq package (PyPI).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
"$(dirname "$0")/install-deps.sh"
if ! command -v espeak-ng >/dev/null; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq espeak-ng
fi
python3 -c "import pesq, numpy, scipy" 2>/dev/null || python3 -m pip install -q pesq numpy scipy
