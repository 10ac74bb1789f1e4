#!/usr/bin/env bash
# Crash test of table writing: kills `antipode analyze PUZZLE --table` with SIGKILL
# after SECONDS, runs the same command again (it resumes), and compares the result with
# an uninterrupted run's table, byte for byte.
# Usage: scripts/check-resume.sh [PUZZLE] [BITS] [SECONDS]   (default: 11puzzle 8 2.5)
#        REFERENCE=complete.table scripts/check-resume.sh sliding:2x7 2 400
#            compares with an existing uninterrupted table instead of building one
#            (big puzzles: the 2x7 table takes 10.9 GB, 21.8 GB while it is built;
#            TMPDIR chooses where the interrupted one goes)
#        scripts/check-resume.sh pdb BOARD SIZES SECONDS [GOAL]
#            the same for the pattern databases of a partition, e.g.
#            scripts/check-resume.sh pdb 15puzzle 7-8 60 "0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15"
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = pdb ]; then
    board=$2 sizes=$3 after=$4
    goal=(); [ -n "${5:-}" ] && goal=(--goal "$5")
    cargo build --release --quiet
    bin=$PWD/target/release/antipode
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    start=$(date +%s.%N)
    "$bin" pdb "$board" "${goal[@]}" --partition "$sizes" --dir "$dir/whole" -q >/dev/null
    echo "uninterrupted build: $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
    "$bin" pdb "$board" "${goal[@]}" --partition "$sizes" --dir "$dir/killed" -q >/dev/null &
    pid=$!
    sleep "$after"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    echo "after kill -9 at ${after} s: $(find "$dir/killed" -mindepth 1 -maxdepth 1 -printf '%f ')"
    start=$(date +%s.%N)
    "$bin" pdb "$board" "${goal[@]}" --partition "$sizes" --dir "$dir/killed" 2>&1 >/dev/null \
        | grep -E 'resuming|built' || true
    echo "resumed build: $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
    left=$(find "$dir/killed" -mindepth 1 -maxdepth 1 ! -name '*.table' -printf '%f ')
    [ -z "$left" ] || { echo "left behind: $left" >&2; exit 1; }
    if diff -r "$dir/whole" "$dir/killed" >/dev/null; then
        echo "databases are byte-identical"
    else
        echo "databases DIFFER" >&2
        exit 1
    fi
    exit 0
fi

puzzle=${1:-11puzzle}
bits=${2:-8}
after=${3:-2.5}

cargo build --release --quiet
bin=$PWD/target/release/antipode
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

whole=${REFERENCE:-$dir/whole.table}
if [ -z "${REFERENCE:-}" ]; then
    start=$(date +%s.%N)
    "$bin" analyze "$puzzle" --bits "$bits" --table "$whole" --quiet --show 0 >/dev/null
    echo "uninterrupted run: $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"
fi

"$bin" analyze "$puzzle" --bits "$bits" --table "$dir/killed.table" --quiet --show 0 >/dev/null &
pid=$!
sleep "$after"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
echo "after kill -9 at ${after} s:"
"$bin" info "$dir/killed.table" | grep -E '^(state|levels)'
refusal=$("$bin" lookup "$puzzle" --table "$dir/killed.table" 2>&1 </dev/null || true)
echo "lookup on it: $refusal"

start=$(date +%s.%N)
"$bin" analyze "$puzzle" --bits "$bits" --table "$dir/killed.table" --show 0 2>&1 >/dev/null \
    | grep -E '^table ' || true
echo "resumed run: $(echo "$(date +%s.%N) - $start" | awk '{print $1 - $3}') s"

"$bin" info "$whole" | grep crc32 | sed 's/^/uninterrupted /'
"$bin" info "$dir/killed.table" | grep crc32 | sed 's/^/resumed       /'
if cmp -s "$whole" "$dir/killed.table"; then
    echo "tables are byte-identical"
else
    echo "tables DIFFER" >&2
    exit 1
fi
