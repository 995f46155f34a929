#!/usr/bin/env bash
# The tests under a sanitizer.
#
#   scripts/sanitize.sh address [FILTER]   AddressSanitizer (use after free, overflows, leaks in C)
#   scripts/sanitize.sh thread [FILTER]    ThreadSanitizer (data races)
#
# Each runs its named subset below, narrowed to FILTER when one is given. Builds go to .build-sanitize-KIND (debug; a
# first build takes several minutes). Exits non-zero on a failed test or a sanitizer report.
#
# The subsets leave out what real time makes impractical under a sanitizer's slowdown (about 2x
# for address, 5-15x for thread): tests that judge audio quality or pacing against the clock,
# the interop tests that drive baresip/Kamailio with deadlines, and the flood tests, which are
# about throughput. What they keep is every parser, state machine and codec, and the threaded
# drivers: transport, user agent, media engine, shared audio device, calls end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: scripts/sanitize.sh address|thread [FILTER]}
# Left out under any sanitizer: the allocation counter (a sanitizer replaces malloc), audio
# quality and pacing judged against real time, external peers, and floods.
real_time='MediaPathAllocationTests|AudioDevicePacingTests|NullAudioDeviceTests|ALSAAudioDeviceTests|Interop|PeerHarness|FloodTests|OverloadTests|CallQualityEndToEndTests|AudioStreamHostileMediaTests|SlowReaderTests'
case "$kind" in
address)
    skip=$real_time
    ;;
thread)
    # Its larger slowdown also rules out the command-line runs, Kamailio and the long
    # loss/jitter harnesses.
    skip="$real_time|CallThroughKamailioTests|VoiceCallCommandTests|OpusLossAdaptationTests|JitterBufferHarnessTests"
    ;;
*)
    echo "unknown sanitizer: $kind (address or thread)" >&2
    exit 2
    ;;
esac
scratch=".build-sanitize-$kind"
args=(--disable-swift-testing --scratch-path "$scratch" --sanitize="$kind" --skip "$skip")
# FILTER narrows the subset; what the subset leaves out stays out.
if [[ -n "${2:-}" ]]; then args+=(--filter "$2"); fi
log="$scratch.log"
mkdir -p "$scratch"
# halt_on_error: the first report fails the run rather than scrolling past.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"
status=0
swift test "${args[@]}" 2>&1 | tee "$log" || status=$?
if grep -qE 'ERROR: (AddressSanitizer|ThreadSanitizer)|WARNING: ThreadSanitizer' "$log"; then
    echo "sanitizer report: see $log" >&2
    status=1
fi
exit $status
