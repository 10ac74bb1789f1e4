#!/usr/bin/env bash
# Table files under stress, as a storage engine tests itself: two writers at once, a
# full disk mid-run (on a file system that writes in place, on one that copies on
# write, and under a level on disk's buckets), SIGKILL at random moments with a resume
# after each, and places a table cannot go. Every final file is compared byte for byte with an uninterrupted build's.
#
# Needs root: it mounts small file systems made for the test (tmpfs, and btrfs on a
# loop device) and installs btrfs-progs with apt-get when mkfs.btrfs is missing.
#
# Usage: scripts/table-safety.sh [writers|full-disk|kills|places]...   (default: all)
#   KILLS=20        kills per kill loop
#   SEED=N          the kill moments' random seed (printed; default: random)
#   ANTIPODE=PATH   check another build of the binary (default: target/release/antipode,
#                   built here)
#   KILL_PUZZLE=P   the puzzle of the table kill loop (default: 11puzzle, as the other
#                   table checks; CI uses goat, 4 MiB at 2 bits and 52 levels, so that
#                   twenty kills take seconds instead of minutes)
# Prints a line per check and ends with "N passed, M failed"; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

KILLS=${KILLS:-20}
SEED=${SEED:-$RANDOM}
TABLE_PUZZLE=11puzzle                      # 2-bit table: 57 MiB, two copies while built
KILL_PUZZLE=${KILL_PUZZLE:-$TABLE_PUZZLE}
# shellcheck disable=SC2054 # the commas are the pattern's, one argument
PDB=(15puzzle --pattern 1,2,3,4,5,6)       # 5,765,760 placements, about 2 s

if [ "$(id -u)" != 0 ]; then
    echo "table-safety: needs root (it mounts tmpfs and btrfs file systems)" >&2
    exit 1
fi
if [ -z "${ANTIPODE:-}" ]; then
    cargo build --release --quiet || exit 1
    ANTIPODE=$PWD/target/release/antipode
fi
bin=$ANTIPODE
# Checkpoints after every level where the build offers it: the most moments to die in.
every=()
help=$("$bin" analyze --help)
[[ $help == *--checkpoint-every* ]] && every=(--checkpoint-every 0)

work=$(mktemp -d)
mounts=()
cleanup() {
    for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# A clean refusal: non-zero exit and exactly one line `antipode: error: ...` containing $1.
refused() { # refused EXPECTED STATUS STDERR-FILE
    [ "$2" != 0 ] && [ "$(wc -l <"$3")" = 1 ] && grep -q '^antipode: error: ' "$3" &&
        grep -q -- "$1" "$3"
}
# mount_tmpfs DIR SIZE [ro]
mount_tmpfs() {
    mkdir -p "$1" && mount -t tmpfs -o "size=$2${3:+,$3}" tmpfs "$1" && mounts+=("$1")
}
# Fills the file system holding DIR with FILE until no byte is free.
fill() {
    dd if=/dev/zero of="$1" bs=1M status=none 2>/dev/null
    dd if=/dev/zero of="$1.small" bs=4K status=none 2>/dev/null
    sync -f "$(dirname "$1")"
}
# Keeps the file system holding DIR full while process PID runs: space the process
# frees (a checkpoint renamed over the last one) is taken again at once.
keep_full() {
    local n=0
    while kill -0 "$2" 2>/dev/null; do
        n=$((n + 1))
        dd if=/dev/zero of="$1/fill.$n" bs=64K status=none 2>/dev/null
        sleep 0.005
    done
}
# Waits (at most 60 s) until FILE exists.
wait_for() {
    for _ in $(seq 6000); do [ -e "$1" ] && return 0; sleep 0.01; done
    return 1
}
# Waits (at most 60 s, and while process PID runs) until FILE is larger than BYTES and
# every byte of it is allocated on disk.
wait_for_blocks() { # wait_for_blocks FILE BYTES PID
    local sizes
    for _ in $(seq 6000); do
        sizes=$(stat -c '%s %b %B' "$1" 2>/dev/null) &&
            awk -v min="$2" '{ exit !($1 > min && $2 * $3 >= $1) }' <<<"$sizes" && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}
# Waits (at most 60 s, and while process PID runs) until the unfinished table FILE
# holds at least LEVELS levels.
wait_for_levels() {
    local levels
    for _ in $(seq 3000); do
        levels=$("$bin" info "$1" 2>/dev/null | awk '$1 == "levels" { print $2 }')
        [ "${levels:-0}" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.02
    done
    return 1
}
# The kill moment: uniform in [0, $1] seconds.
moment() { awk -v s="$SEED$2" -v t="$1" 'BEGIN { srand(s); printf "%.3f", rand() * t }'; }
# build_table FILE [PUZZLE]: a 2-bit table of PUZZLE (default $TABLE_PUZZLE).
build_table() { "$bin" analyze "${2:-$TABLE_PUZZLE}" --bits 2 --table "$1" "${every[@]}" -q --show 0; }
# Seconds since the moment $1 (date +%s.%N).
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'; }
build_pdb() { "$bin" pdb "${PDB[@]}" --dir "$1" "${every[@]}" -q; }

echo "binary $bin, kill seed $SEED"
mkdir -p "$work/ref"
started=$(date +%s.%N)
build_table "$work/ref/table" >/dev/null || { echo "reference table failed" >&2; exit 1; }
table_seconds=$(since "$started")
started=$(date +%s.%N)
build_pdb "$work/ref/pdb" >/dev/null || { echo "reference database failed" >&2; exit 1; }
pdb_seconds=$(since "$started")
ref_pdb=$(ls "$work/ref/pdb")
echo "reference builds: table $table_seconds s, database $pdb_seconds s"

writers() {
    local d=$work/writers
    mkdir -p "$d"
    "$bin" analyze sliding:2x6 --bits 2 --table "$d/same.table" -q --show 0 >/dev/null 2>"$d/e1" &
    local first=$!
    sleep 0.3
    "$bin" analyze sliding:2x6 --bits 2 --table "$d/same.table" -q --show 0 >/dev/null 2>"$d/e2"
    local second=$?
    wait "$first"
    local first_status=$?
    if [ "$first_status" = 0 ] && refused "is writing this file" "$second" "$d/e2" &&
        "$bin" verify "$d/same.table" >/dev/null; then
        ok "two table writers 0.3 s apart: the second refused ($(cat "$d/e2")), the table verifies"
    else
        fail "two table writers: first exit $first_status, second exit $second: $(cat "$d/e1" "$d/e2")"
    fi
    build_pdb "$d/pdb" >/dev/null 2>"$d/p1" &
    first=$!
    sleep 0.3
    build_pdb "$d/pdb" >/dev/null 2>"$d/p2"
    second=$?
    wait "$first"
    first_status=$?
    if [ "$first_status" = 0 ] && refused "is writing this file" "$second" "$d/p2" &&
        [ "$(ls "$d/pdb")" = "$ref_pdb" ] && cmp -s "$d/pdb/$ref_pdb" "$work/ref/pdb/$ref_pdb"; then
        ok "two database builders 0.3 s apart: the second refused, the database is the reference's"
    else
        fail "two database builders: exits $first_status, $second: $(cat "$d/p1" "$d/p2"); $(ls "$d/pdb")"
    fi
}

full_disk() {
    local d=$work/full table_bytes
    table_bytes=$(stat -c %s "$work/ref/table")
    # In place (tmpfs): every block is allocated at the start, so a disk that fills up
    # later cannot stop the build.
    mount_tmpfs "$d/tmpfs" "$((2 * table_bytes / 1048576 + 4))M" || { fail "mount tmpfs"; return; }
    build_table "$d/tmpfs/t.table" >/dev/null 2>"$d/e1" &
    local pid=$!
    # Once the build has its blocks (a disk filled before that refuses the build), and
    # while it still runs: a fill after its end would prove nothing.
    local filled=no
    if wait_for_blocks "$d/tmpfs/t.table" "$table_bytes" "$pid"; then
        fill "$d/tmpfs/fill"
        kill -0 "$pid" 2>/dev/null && filled=yes
    fi
    wait "$pid"
    local status=$?
    if [ "$filled" = no ]; then
        fail "disk filled mid-run on tmpfs: the build ended before the disk was full (exit $status)"
    elif [ "$status" = 0 ] && cmp -s "$d/tmpfs/t.table" "$work/ref/table"; then
        ok "disk filled mid-run on tmpfs: the build completes (its blocks were allocated first), byte-identical"
    else
        fail "disk filled mid-run on tmpfs: exit $status: $(cat "$d/e1")"
    fi
    # Copy on write (btrfs): a checkpoint's rewrite of a copy needs new blocks, and the
    # disk has none: the run stops with one line, the file keeps its last checkpoint,
    # and once there is room the same command finishes it.
    command -v mkfs.btrfs >/dev/null || bash scripts/apt-install.sh btrfs-progs
    truncate -s 400M "$d/btrfs.img"
    mkdir -p "$d/btrfs"
    if ! mkfs.btrfs -q -f "$d/btrfs.img" >/dev/null 2>&1 || ! mount -o loop "$d/btrfs.img" "$d/btrfs"; then
        fail "cannot make a btrfs file system on a loop device"
        return
    fi
    mounts+=("$d/btrfs")
    # Leave the table its two copies and room to rewrite one and a half (btrfs frees a
    # copy's old blocks only at its next commit), until the second file takes the rest.
    local avail
    avail=$(df -B1 --output=avail "$d/btrfs" | tail -1)
    fallocate -l $((avail - 7 * table_bytes / 2)) "$d/btrfs/ballast"
    build_table "$d/btrfs/t.table" >/dev/null 2>"$d/e2" &
    pid=$!
    wait_for_levels "$d/btrfs/t.table" 2 "$pid"
    fill "$d/btrfs/fill"
    wait "$pid"
    status=$?
    local state
    state=$("$bin" info "$d/btrfs/t.table" 2>&1 | grep -E '^(state|levels)' | tr -s ' ' | tr '\n' ' ')
    if refused "failed" "$status" "$d/e2" && [[ $state == *incomplete* ]] &&
        [ "$(echo "$state" | awk '{ print $NF }')" -ge 2 ]; then
        ok "disk full mid-run on btrfs: one line ($(cat "$d/e2")); the file: $state"
    else
        fail "disk full mid-run on btrfs: exit $status: $(cat "$d/e2"); the file: $state"
    fi
    rm -f "$d/btrfs/fill" "$d/btrfs/fill.small" "$d/btrfs/ballast"
    sync -f "$d/btrfs"
    if build_table "$d/btrfs/t.table" >/dev/null 2>"$d/e3" && cmp -s "$d/btrfs/t.table" "$work/ref/table"; then
        ok "after room was made, the same command resumed to a byte-identical table"
    else
        fail "resume after the full disk: $(cat "$d/e3")"
    fi
    # A database build: a checkpoint (a new file each time) meets the full disk.
    mount_tmpfs "$d/pdb" 160M || { fail "mount tmpfs"; return; }
    build_pdb "$d/pdb/db" >/dev/null 2>"$d/e4" &
    pid=$!
    wait_for "$d/pdb/db/$ref_pdb.checkpoint"
    keep_full "$d/pdb" "$pid"
    wait "$pid"
    status=$?
    local left
    left=$(find "$d/pdb/db" -mindepth 1 -maxdepth 1 -printf '%f ')
    if refused "writing checkpoint" "$status" "$d/e4" && [ "$left" = "$ref_pdb.checkpoint " ]; then
        ok "disk full at a database checkpoint: one line, the last checkpoint kept, nothing else left"
    else
        fail "disk full at a database checkpoint: exit $status: $(cat "$d/e4"); left: $left"
    fi
    rm -f "$d/pdb"/fill*
    "$bin" pdb "${PDB[@]}" --dir "$d/pdb/db" "${every[@]}" >/dev/null 2>"$d/e4b"
    if grep -q resuming "$d/e4b" &&
        cmp -s "$d/pdb/db/$ref_pdb" "$work/ref/pdb/$ref_pdb" && [ "$(ls "$d/pdb/db")" = "$ref_pdb" ]; then
        ok "after room was made, the database build resumed from its checkpoint, byte-identical"
    else
        fail "database resume after the full disk: $(cat "$d/e4b"); $(ls "$d/pdb/db")"
    fi
    # The database's own write meets the full disk (no checkpoints in this build).
    rm -rf "$d/pdb/db"
    local none=()
    [ ${#every[@]} = 0 ] || none=(--checkpoint-every 100000)
    "$bin" pdb "${PDB[@]}" --dir "$d/pdb/db" "${none[@]}" -q >/dev/null 2>"$d/e5" &
    pid=$!
    wait_for "$d/pdb/db/$ref_pdb.partial"
    keep_full "$d/pdb" "$pid"
    wait "$pid"
    status=$?
    left=$(find "$d/pdb/db" -mindepth 1 -maxdepth 1 -printf '%f ')
    if refused "No space left" "$status" "$d/e5" && [ -z "$left" ]; then
        ok "disk full while a database is written: one line, nothing left behind"
    else
        fail "disk full while a database is written: exit $status: $(cat "$d/e5"); left: $left"
    fi
    # Levels on disk: the 3x3x3 corners by class (a 2-bit table of 536 KiB) in 128 KiB
    # of memory spill their buckets to files beside the table, and 3 MiB holds the
    # table, not the widest level's buckets: one line, the buckets removed, the table at
    # its last complete level; with room, the same command resumes to the in-memory
    # build's table.
    local corners=("$bin" analyze "3x3x3-corners --symmetry" --bits 2 -q)
    "${corners[@]}" --table "$d/corners-memory.table" >/dev/null 2>&1
    mount_tmpfs "$d/levels" 3M || { fail "mount tmpfs"; return; }
    "${corners[@]}" --table "$d/levels/c.table" --memory 128KiB >/dev/null 2>"$d/e6"
    status=$?
    state=$("$bin" info "$d/levels/c.table" 2>&1 | grep -E '^(state|levels)' | tr -s ' ' | tr '\n' ' ')
    left=$(find "$d/levels" -mindepth 1 -maxdepth 1 -printf '%f ')
    if refused "No space left" "$status" "$d/e6" && [[ $state == *incomplete* ]] &&
        [ "$left" = "c.table " ]; then
        ok "disk full in a level on disk: one line ($(cat "$d/e6")); the file: $state"
    else
        fail "disk full in a level on disk: exit $status: $(cat "$d/e6"); the file: $state; left: $left"
    fi
    mount -o remount,size=64M "$d/levels"
    if "${corners[@]}" --table "$d/levels/c.table" --memory 128KiB >/dev/null 2>"$d/e7" &&
        cmp -s "$d/levels/c.table" "$d/corners-memory.table"; then
        ok "after room was made, the levels on disk resumed to the in-memory build's table"
    else
        fail "levels on disk, resume after the full disk: $(cat "$d/e7")"
    fi
}

# kill_loop NAME COMMAND COMPARE SECONDS COMPLETE: runs the command (an array's name),
# killing it with SIGKILL at a random moment up to SECONDS in, KILLS times; a run that
# finishes first is compared (COMPARE STATUS) and the build starts over, and so is one
# killed after its file was complete (COMPLETE says so) but before it exited; the last
# one is run to the end and compared.
kill_loop() {
    local name=$1 compare=$3 seconds=$4 complete=$5 kills=0 completions=0 bad=0 n=0 pid status
    local -n command=$2
    while [ "$kills" -lt "$KILLS" ]; do
        n=$((n + 1))
        "${command[@]}" >/dev/null 2>>"$work/kill.err" &
        pid=$!
        sleep "$(moment "$seconds" "$n")"
        if kill -9 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            kills=$((kills + 1))
            if $complete; then
                completions=$((completions + 1))
                $compare 0 || bad=$((bad + 1))
            fi
        else
            wait "$pid"
            status=$?
            completions=$((completions + 1))
            $compare "$status" || bad=$((bad + 1))
        fi
    done
    "${command[@]}" >/dev/null 2>>"$work/kill.err"
    status=$?
    completions=$((completions + 1))
    $compare "$status" || bad=$((bad + 1))
    if [ "$bad" = 0 ]; then
        ok "$name: $kills kills -9 at random moments, $completions completed builds, all byte-identical"
    else
        fail "$name: $bad of $completions completed builds differ ($kills kills): $(tail -3 "$work/kill.err")"
    fi
}

kills() {
    local d=$work/kills
    mkdir -p "$d"
    # shellcheck disable=SC2034 # used through kill_loop's name reference
    local table=("$bin" analyze "$KILL_PUZZLE" --bits 2 --table "$d/t.table" "${every[@]}" -q --show 0)
    local reference=$work/ref/table seconds=$table_seconds
    if [ "$KILL_PUZZLE" != "$TABLE_PUZZLE" ]; then
        reference=$work/ref/kill.table
        local started
        started=$(date +%s.%N)
        build_table "$reference" "$KILL_PUZZLE" >/dev/null || { fail "reference $KILL_PUZZLE table"; return; }
        seconds=$(since "$started")
        echo "reference build: $KILL_PUZZLE table $seconds s"
    fi
    same_table() {
        local same=1
        [ "$1" = 0 ] && cmp -s "$d/t.table" "$reference" && same=0
        rm -f "$d/t.table"
        return $same
    }
    table_complete() { [[ $("$bin" info "$d/t.table" 2>/dev/null) =~ state\ +complete ]]; }
    kill_loop "$KILL_PUZZLE 2-bit table" table same_table "$seconds" table_complete
    # shellcheck disable=SC2034
    local database=("$bin" pdb "${PDB[@]}" --dir "$d/db" "${every[@]}" -q)
    same_pdb() {
        local same=1
        # Killed between the database's rename and its checkpoint's removal: the next
        # run opens the database and removes the checkpoint.
        [ -e "$d/db/$ref_pdb.checkpoint" ] && "${database[@]}" >/dev/null 2>>"$work/kill.err"
        [ "$1" = 0 ] && [ "$(ls "$d/db")" = "$ref_pdb" ] &&
            cmp -s "$d/db/$ref_pdb" "$work/ref/pdb/$ref_pdb" && same=0
        rm -rf "$d/db"
        return $same
    }
    pdb_complete() { [ -e "$d/db/$ref_pdb" ]; }
    kill_loop "${PDB[*]} database" database same_pdb "$pdb_seconds" pdb_complete
}

places() {
    local d=$work/places status
    mkdir -p "$d/dir"
    # Large enough that the refusal is for the mode, not the room.
    mount_tmpfs "$d/ro" 1G ro || { fail "mount tmpfs"; return; }
    mount_tmpfs "$d/tiny" 1M || { fail "mount tmpfs"; return; }
    check_place() { # check_place WHAT EXPECTED FOLDER ARGS...
        local what=$1 expected=$2 folder=$3
        shift 3
        local before after
        before=$(ls -a "$folder" 2>&1)
        "$bin" "$@" >/dev/null 2>"$d/err"
        status=$?
        after=$(ls -a "$folder" 2>&1)
        if refused "$expected" "$status" "$d/err" && [ "$before" = "$after" ]; then
            ok "$what: $(cat "$d/err")"
        else
            fail "$what: exit $status: $(cat "$d/err"); before: $before; after: $after"
        fi
    }
    check_place "table on a read-only file system" "Read-only" "$d/ro" \
        analyze "$TABLE_PUZZLE" --table "$d/ro/t.table" -q
    check_place "database folder on a read-only file system" "Read-only" "$d/ro" \
        pdb "${PDB[@]}" --dir "$d/ro" -q
    check_place "table on a full disk" "only" "$d/tiny" \
        analyze "$TABLE_PUZZLE" --table "$d/tiny/t.table" -q
    check_place "database on a full disk" "only" "$d/tiny" \
        pdb "${PDB[@]}" --dir "$d/tiny" -q
    check_place "table in a folder that does not exist" "does not exist" "$d" \
        analyze "$TABLE_PUZZLE" --table "$d/missing/t.table" -q
    check_place "table path that is a folder" "is a folder" "$d/dir" \
        analyze "$TABLE_PUZZLE" --table "$d/dir" -q
}

[ $# = 0 ] && set -- writers full-disk kills places
for part in "$@"; do
    case $part in
    writers) writers ;;
    full-disk) full_disk ;;
    kills) kills ;;
    places) places ;;
    *) echo "table-safety: unknown part $part" >&2; exit 2 ;;
    esac
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
