#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets, fuzz/corpus/<target>/, from the files bundled with
# gridsim (and ../shared when it is there). Seeds are copied under a name made from their path and
# cut to 1 MB (libFuzzer grows the corpus from there; entries it added are left alone). The
# corpora are not committed (fuzz/.gitignore); rerun this script whenever you like.
#
# Usage: scripts/fuzz_corpus.sh
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_BYTES=$((1024 * 1024))
CORPUS=fuzz/corpus
SHARED=${GRIDSIM_SHARED:-../shared}

# seed TARGET FILE...: copies each file (its first MAX_BYTES) into TARGET's corpus.
seed() {
    local target=$1 file name
    shift
    mkdir -p "$CORPUS/$target"
    for file in "$@"; do
        [ -f "$file" ] || continue
        name=${file#./}
        name=${name#../}
        name=${name//\//_}
        head -c "$MAX_BYTES" "$file" >"$CORPUS/$target/$name"
    done
}

# files DIR... -- FIND-EXPRESSION: the files under the existing DIRs that match, sorted, one a line.
files() {
    local dirs=()
    while [ "$1" != "--" ]; do
        [ -d "$1" ] && dirs+=("$1")
        shift
    done
    shift
    [ ${#dirs[@]} -gt 0 ] || return 0
    find "${dirs[@]}" -type f \( "$@" \) ! -name 'SOURCES.txt' | LC_ALL=C sort
}

# Experiments: the target loads its text as if it were experiments/fuzz.toml, so the test
# fixtures' relative paths are rewritten to reach the same files from experiments/. Every file
# is also seeded reduced (200 jobs, 1 replication, a small SWF trace instead of the 185k-job
# process trace): the bundled WAL and Grid-GUM latency experiments take 10 to 100 s each to
# validate in the fuzz build (`gridsim validate experiments/wal.toml` takes ~18 s in release),
# more than libFuzzer's -timeout, so they are seeded reduced only (SLOW_EXPERIMENTS).
SLOW_EXPERIMENTS=" wal.toml wal-paging.toml wal-weights.toml wal-buffer.toml wal-hit-rate.toml wal-datasize.toml wal-memory.toml wal-ceiling.toml wal-controller.toml wal-scaled.toml wal-scaled-weights.toml wal-scaled-buffer.toml wal-scaled-datasize.toml gridgum-latency.toml "
mapfile -t experiments < <(files experiments tests/data/experiments -- -name '*.toml')
mkdir -p "$CORPUS/experiment_toml"
for file in "${experiments[@]}"; do
    name=${file//\//_}
    fixed() {
        sed -E 's#"\.\./\.\./\.\./#"../#g; s#"\.\./platforms/cluster\.xml"#"../tests/data/platforms/cluster.xml"#' "$file"
    }
    if [[ $SLOW_EXPERIMENTS != *" $(basename "$file") "* ]]; then
        fixed | head -c "$MAX_BYTES" >"$CORPUS/experiment_toml/$name"
    fi
    fixed | sed -E 's/^jobs *= *[0-9]+/jobs = 200/; s/^replications *= *[0-9]+/replications = 1/;
        /^\[workload\]/,/^\[/ s#^trace *= *".*"#trace = "../traces/tests/data/swf-oddities.swf"#' |
        head -c "$MAX_BYTES" >"$CORPUS/experiment_toml/reduced_$name"
done

mapfile -t xml < <(files platforms/data platforms/tests/data tests/data/platforms "$SHARED/platforms" -- -name '*.xml')
seed simgrid_xml "${xml[@]}"

mapfile -t toml < <(files platforms/data -- -name '*.toml')
seed platform_toml "${toml[@]}"

mapfile -t profiles < <(files platforms/data tests/data/platforms "$SHARED/platforms" -- \
    -name '*.txt' -o -name '*.profile' -o -name '*.prof' -o -name '*.state')
seed profile_text "${profiles[@]}"

mapfile -t scenarios < <(files tests/data -- -name '*.json')
seed replay_json "${scenarios[@]}"

mapfile -t traces < <(files tests/data/traces traces/data traces/tests/data "$SHARED/traces" -- \
    -name '*.swf' -o -name '*.gwf' -o -name '*.tab' -o -name '*.csv' -o -name '*.gz')
seed trace "${traces[@]}"
# The decompressed start of each gzip trace too, so that the plain-text path starts from real
# records of every format.
for file in "${traces[@]}"; do
    case $file in
    *.gz)
        name=${file#./}
        name=${name#../}
        name=${name//\//_}
        # head closes the pipe early: gzip's SIGPIPE is expected.
        (gzip -dc "$file" 2>/dev/null || true) | head -c "$MAX_BYTES" >"$CORPUS/trace/${name%.gz}"
        ;;
    esac
done

for dir in "$CORPUS"/*/; do
    # Identical seeds (shared/ holds copies of bundled files) only slow the fuzzer's start; the
    # reverse order keeps the bundled copy.
    find "$dir" -type f -print0 | LC_ALL=C sort -rz | xargs -0 -r md5sum | awk 'seen[$1]++ { print $2 }' |
        while read -r duplicate; do rm -f -- "$duplicate"; done
    printf '%-16s %4d seeds, %6d KB\n' "$(basename "$dir")" "$(find "$dir" -type f | wc -l)" "$(du -sk "$dir" | cut -f1)"
done
