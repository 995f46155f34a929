#!/usr/bin/env bash
# The public API baseline (api/public-api.txt): every public declaration of the library modules,
# from the compiler's symbol graphs. `scripts/api-baseline.sh` regenerates it; `--check` (run by
# CI) fails when the API differs from the checked-in baseline, so it changes only on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-symbol-graph --minimum-access-level public >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
current=$(mktemp)
trap 'rm -f "$current"' EXIT
swift scripts/PublicAPI.swift "$graphs" >"$current"
if [ "${1:-}" = "--check" ]; then
    if ! diff -u api/public-api.txt "$current"; then
        echo "The public API changed (diff above). If on purpose, run scripts/api-baseline.sh and commit api/public-api.txt." >&2
        exit 1
    fi
    echo "public API matches api/public-api.txt ($(wc -l <"$current") declarations)"
else
    cp "$current" api/public-api.txt
    echo "wrote api/public-api.txt ($(wc -l <"$current") declarations)"
fi
