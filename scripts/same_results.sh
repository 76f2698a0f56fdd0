#!/usr/bin/env bash
# Checks that a refactoring changed no result: builds gridsim at BASE (a git revision, default
# HEAD~1) and at NEW (a revision, default the working tree), runs every bundled experiment that
# exists in both with each (`--quick` unless
# FULL=1), and compares every CSV of the results (runs.csv, params.csv and the tables; not
# timing.csv, which holds wall-clock times) byte for byte. Prints one line per experiment and
# exits 1 if any file differs or is missing on one side.
#
# Usage: scripts/same_results.sh [BASE [NEW]]
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-HEAD~1}
new=${2:-}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base" >/dev/null 2>&1 || true; git worktree remove --force "$work/new" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git worktree add --detach "$work/base" "$base" >/dev/null
echo "building $base ..." >&2
(cd "$work/base" && CARGO_TARGET_DIR="$work/target-base" cargo build --release --locked --bin gridsim 2>&1 | tail -n 1) >&2
if [ -n "$new" ]; then
    git worktree add --detach "$work/new" "$new" >/dev/null
    echo "building $new ..." >&2
    (cd "$work/new" && CARGO_TARGET_DIR="$work/target-new" cargo build --release --locked --bin gridsim 2>&1 | tail -n 1) >&2
    new_bin="$work/target-new/release/gridsim"
    new_root="$work/new"
else
    echo "building the working tree ..." >&2
    cargo build --release --locked --bin gridsim 2>&1 | tail -n 1 >&2
    new_bin="target/release/gridsim"
    new_root="."
fi

quick=(--quick)
[ "${FULL:-0}" = 1 ] && quick=()
status=0
for file in experiments/*.toml; do
    name=$(basename "$file" .toml)
    [ -f "$work/base/$file" ] && [ -f "$new_root/$file" ] || continue
    "$work/target-base/release/gridsim" run "${quick[@]}" --no-plots --jobs 2 --out "$work/before" "$work/base/$file" >/dev/null 2>&1 ||
        echo "$name: the base build failed on it" >&2
    "$new_bin" run "${quick[@]}" --no-plots --jobs 2 --out "$work/after" "$new_root/$file" >/dev/null 2>&1 ||
        echo "$name: the working tree failed on it" >&2
    differ=()
    for dir in "$work"/before/results/"$name"*/ "$work"/after/results/"$name"*/; do
        [ -d "$dir" ] || continue
        rel=${dir#"$work"/before/}
        rel=${rel#"$work"/after/}
        for csv in "$work/before/$rel"*.csv "$work/after/$rel"*.csv; do
            [ -e "$csv" ] || continue
            f=$(basename "$csv")
            [ "$f" = timing.csv ] && continue
            cmp -s "$work/before/$rel$f" "$work/after/$rel$f" || differ+=("$rel$f")
        done
    done
    if [ ${#differ[@]} -eq 0 ]; then
        echo "$name: identical"
    else
        printf '%s: DIFFERS: %s\n' "$name" "$(printf '%s\n' "${differ[@]}" | sort -u | tr '\n' ' ')"
        status=1
    fi
done
exit $status
