#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh TARGET SECONDS     fuzz one harness for SECONDS (TARGET "all": each in turn)
#   scripts/fuzz.sh list               the harnesses
#
# Builds `voice-fuzz` with -sanitize=fuzzer,address into .build-fuzz (release, so the figures
# mean something), starts from the committed seeds in Tests/VoiceFuzzingTests/Corpus/TARGET
# plus what earlier runs found (.build-fuzz/corpus/TARGET), and stops at the first crash, leak
# or timeout (-timeout=10 s per input, -rss_limit_mb=2048). A finding is left in
# .build-fuzz/findings/TARGET/; copy it into the committed corpus once it is fixed, where
# FuzzCorpusTests replays it on every test run.
#
# FUZZ_SEED=N fixes libFuzzer's seed and FUZZ_RUNS=N stops each harness after N inputs (within
# SECONDS), for a repeatable short pass such as CI's. FUZZ_SCRATCH=DIR builds elsewhere than
# .build-fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=${FUZZ_SCRATCH:-.build-fuzz}
if [[ "${1:-}" == "list" ]]; then
    swift run -c release voice-fuzz 2>/dev/null | sed -n '3,$p'
    exit 0
fi
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
# The Swift frontend applies only the last -sanitize= it is given, and SwiftPM passes one per
# --sanitize in no fixed order: so Swift code was built with coverage but no ASan, or ASan but
# no coverage (libFuzzer then finds nothing). The combined flag last gives it both; --sanitize
# still builds the C targets and links the runtimes.
swift build -c release --product voice-fuzz --scratch-path "$scratch" \
    --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address -Xswiftc -DVOICE_FUZZING >&2
binary="$scratch/release/voice-fuzz"
if [[ "$target" == "all" ]]; then
    targets=$(ls Tests/VoiceFuzzingTests/Corpus)
else
    targets=$target
fi
status=0
for t in $targets; do
    mkdir -p "$scratch/corpus/$t" "$scratch/findings/$t"
    log="$scratch/findings/$t/log.txt"
    echo "== $t: ${seconds}s" >&2
    if ! VOICE_FUZZ_TARGET=$t "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -seed="${FUZZ_SEED:-0}" -runs="${FUZZ_RUNS:--1}" \
        -print_final_stats=1 -artifact_prefix="$scratch/findings/$t/" \
        "$scratch/corpus/$t" "Tests/VoiceFuzzingTests/Corpus/$t" >"$log" 2>&1; then
        status=1
        echo "$t: FINDING (see $scratch/findings/$t/)" >&2
        tail -40 "$log" >&2
    fi
    if grep -q 'Is the code instrumented for coverage' "$log"; then
        # Seen after an incremental sanitizer build: the binary runs but records no coverage.
        status=1
        echo "$t: no coverage recorded; remove $scratch and run again for a clean build" >&2
    fi
    runs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    per=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'cov: [0-9]*' || true)
    echo "$t: ${runs:-0} executions, ${per:-0} exec/s, ${cov:-cov: ?}"
done
exit $status
