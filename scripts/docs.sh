#!/usr/bin/env bash
# Builds VoiceCore's documentation (the DocC catalog in Sources/VoiceCore/VoiceCore.docc and the
# doc comments of the public API) with warnings as errors: a broken symbol link fails the build.
# The archive lands in .build/plugins/Swift-DocC/outputs/VoiceCore.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package generate-documentation --target VoiceCore --warnings-as-errors "$@"
