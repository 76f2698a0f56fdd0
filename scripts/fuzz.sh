#!/usr/bin/env bash
# Fuzzes every parser of gridsim with cargo-fuzz (libFuzzer, nightly), one target after the
# other (one libFuzzer process at a time), SECONDS seconds each (default 600). The targets are in
# src/fuzzing.rs; the seed corpora come from scripts/fuzz_corpus.sh (built here when missing).
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# libFuzzer stops at its first crash, timeout (> 10 s for one input) or out-of-memory (> 2 GB
# RSS); the input is saved in fuzz/artifacts/<target>/ and the target is started again for the
# rest of its time, up to MAX_RESTARTS times. Each target's output is in fuzz/logs/<target>.log.
# Inputs are at most MAX_LEN bytes (default 64 KiB; longer seeds are read cut to it): the 1 MB
# trace seeds take 0.5 to 3 s per input in the sanitised build, which would leave a few thousand
# executions in ten minutes. FUZZ_ARGS adds libFuzzer options (later ones win), e.g. "-dict=F".
# Prints one line per target: executions, seconds, corpus size and the new artifacts; exits
# non-zero when any crash, timeout, OOM or leak artifact was produced.
#
# Reproduce a finding:  cd fuzz && cargo +nightly fuzz run TARGET artifacts/TARGET/crash-...
# Minimise it:          cd fuzz && cargo +nightly fuzz tmin TARGET artifacts/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-600}
shift || true
MAX_RESTARTS=${MAX_RESTARTS:-5}
MAX_LEN=${MAX_LEN:-65536}
ALL_TARGETS=(experiment_toml simgrid_xml platform_toml profile_text replay_json trace)
if [ $# -gt 0 ]; then
    TARGETS=("$@")
else
    TARGETS=("${ALL_TARGETS[@]}")
fi

for target in "${TARGETS[@]}"; do
    if [ ! -d "fuzz/corpus/$target" ]; then
        scripts/fuzz_corpus.sh
        break
    fi
done
mkdir -p fuzz/logs

# Build every target first, so that build time is not fuzzing time.
(cd fuzz && cargo +nightly fuzz build)

# artifacts TARGET: the finding files of TARGET, one a line.
artifacts() {
    find "fuzz/artifacts/$1" -maxdepth 1 -type f \
        \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) 2>/dev/null | LC_ALL=C sort
}

found_any=0
summary=()
for target in "${TARGETS[@]}"; do
    mkdir -p "fuzz/artifacts/$target"
    before=$(artifacts "$target")
    log="fuzz/logs/$target.log"
    : >"$log"
    executions=0
    start=$(date +%s)
    runs=0
    while :; do
        elapsed=$(($(date +%s) - start))
        remaining=$((SECONDS_PER_TARGET - elapsed))
        [ "$remaining" -gt 0 ] || break
        runs=$((runs + 1))
        echo "=== $target: run $runs, $remaining s left" >>"$log"
        status=0
        (cd fuzz && cargo +nightly fuzz run "$target" -- \
            -max_total_time="$remaining" -rss_limit_mb=2048 -timeout=10 -max_len="$MAX_LEN" -print_final_stats=1 ${FUZZ_ARGS:-}) \
            >>"$log" 2>&1 || status=$?
        # -print_final_stats reports the executions of this run, also after a crash.
        n=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -n 1 | awk '{ print $2 }')
        executions=$((executions + ${n:-0}))
        # Blank the counted line so the next run's line is the last one.
        sed -i 's/^stat::number_of_executed_units:/stat::counted_executed_units:/' "$log"
        if [ "$status" -eq 0 ]; then
            break
        fi
        if [ "$runs" -gt "$MAX_RESTARTS" ]; then
            echo "=== $target: stopped after $runs runs ending in a finding" >>"$log"
            break
        fi
    done
    seconds=$(($(date +%s) - start))
    new=$(comm -13 <(echo "$before") <(artifacts "$target") | sed '/^$/d')
    crashes=$(grep -c '/crash-' <<<"$new" || true)
    timeouts=$(grep -c '/timeout-' <<<"$new" || true)
    ooms=$(grep -c '/oom-' <<<"$new" || true)
    leaks=$(grep -c '/leak-' <<<"$new" || true)
    corpus_files=$(find "fuzz/corpus/$target" -type f | wc -l)
    corpus_kb=$(find "fuzz/corpus/$target" -type f -printf '%s\n' | awk '{ s += $1 } END { print int(s / 1024) }')
    cov=$(grep -a -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 | grep -o -E 'cov: [0-9]+ ft: [0-9]+' || true)
    line=$(printf '%-16s executions %10d  seconds %5d  runs %d  corpus %5d files %7d KB  %-22s  crashes %d timeouts %d ooms %d leaks %d' \
        "$target" "$executions" "$seconds" "$runs" "$corpus_files" "$corpus_kb" "${cov:-cov: ?}" \
        "$crashes" "$timeouts" "$ooms" "$leaks")
    echo "$line"
    summary+=("$line")
    if [ -n "$new" ]; then
        found_any=1
        sed 's/^/    /' <<<"$new"
    fi
done

echo
echo "summary (${SECONDS_PER_TARGET} s per target):"
printf '%s\n' "${summary[@]}"
if [ "$found_any" -ne 0 ]; then
    echo "findings: see fuzz/artifacts/ and fuzz/logs/" >&2
    exit 1
fi
