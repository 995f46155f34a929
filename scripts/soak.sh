#!/bin/sh
# A soak, not part of CI: 40 concurrent calls through Kamailio for 30 minutes with churn (each
# call 20–60 s, replaced when it ends). Prints RSS, open descriptors and threads every 10 s, and
# at the end the RSS slope after a 5-minute warm-up, descriptor and thread growth, failed calls
# and lost packets. Needs kamailio (scripts/install-deps.sh installs it).
# Usage: scripts/soak.sh [--calls N] [--minutes M] [--warm-up M]
set -eu
cd "$(dirname "$0")/.."
swift build -c release --product voice-bench
exec .build/release/voice-bench soak "$@"
