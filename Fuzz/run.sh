#!/usr/bin/env bash
# Builds locd-fuzz with libFuzzer and AddressSanitizer and runs every target (or those named) for a bounded time.
#
# Usage: Fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]      (default 30 s; targets: see FuzzTarget)
# The long run: Fuzz/run.sh 3600. Crashes are written to .build-fuzz/findings/TARGET/crash-*; the script exits
# non-zero if any target crashed. New interesting inputs go to .build-fuzz/corpus/TARGET (the checked-in seeds
# in Fuzz/corpus stay as they are); copy a crash into Fuzz/regressions/TARGET once it is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(varlink-frame call-dispatch manifest config nmea gpsd)

scratch=.build-fuzz
swift build --scratch-path "$scratch" --product locd-fuzz --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING
binary=$(swift build --scratch-path "$scratch" --show-bin-path)/locd-fuzz

failed=()
for target in "${targets[@]}"; do
    [ -d "Fuzz/corpus/$target" ] || { echo "fuzz: no seeds in Fuzz/corpus/$target" >&2; exit 2; }
    mkdir -p "$scratch/corpus/$target" "$scratch/findings/$target"
    echo "fuzz: $target for ${seconds}s"
    if ! LOCD_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$binary" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$scratch/findings/$target/" \
        "$scratch/corpus/$target" "Fuzz/corpus/$target" 2>"$scratch/findings/$target/log"; then
        failed+=("$target")
        tail -40 "$scratch/findings/$target/log" >&2
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$scratch/findings/$target/log" | tr '\n' ' '
    echo
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]}; inputs in $scratch/findings/" >&2
    exit 1
fi
echo "fuzz: no crash in ${targets[*]}"
