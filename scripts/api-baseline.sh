#!/usr/bin/env bash
# The public API baseline (api/public-api.txt): every public declaration of the library modules,
# from the compiler's symbol graphs. `scripts/api-baseline.sh` regenerates it; `--check` (run by
# CI) fails when the API differs from the checked-in baseline, so it changes only on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."
graphs="$(swift build --show-bin-path)/../symbolgraph"
# Start clean, so a module whose graph was not emitted cannot be read from an older run.
rm -rf "$graphs"
# The command also tries the test modules and fails when the tests are not built (as on a fresh
# clone); the library modules' graphs are what matters, and PublicAPI.swift fails if one is missing.
swift package dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
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
