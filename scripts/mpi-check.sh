#!/usr/bin/env bash
# The partitioned search under MPI (`--features mpi`): installs OpenMPI and libclang
# with apt-get when they are missing, builds antipode with the feature (in
# target/mpi, apart from the default build), and checks under `mpirun` with 1 to 4
# ranks (oversubscribed), once over shared memory and once forced onto TCP over
# loopback, that the histograms, God's numbers and antipodes of 8puzzle, 2x5, Goat,
# Klotski and Oshidori:5 equal the single process's; that a rank killed with SIGKILL
# ends the whole job; and that bad input is one line and a non-zero exit. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# mpicc comes with the headers (libopenmpi-dev); bindgen needs libclang.
if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null ||
    ! ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1; then
    echo "installing OpenMPI and libclang (apt-get)"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    $sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        libopenmpi-dev openmpi-bin libclang-dev >/dev/null
fi

cargo fmt -- --check
cargo clippy --quiet --release --features mpi --target-dir target/mpi -- -D warnings
cargo build --quiet --release --features mpi --target-dir target/mpi
cargo build --quiet --release
mpi_bin=target/mpi/release/antipode
one_bin=target/release/antipode

# OpenMPI refuses root unless told; two cores run up to four ranks oversubscribed.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun_flags=(--oversubscribe --bind-to none)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The fields both runs must agree on.
facts() {
    python3 -c 'import json, sys
a = json.load(sys.stdin)
print(json.dumps([a["histogram"], a["gods_number"], a["antipode_count"], a["antipodes"]]))'
}

failures=0
for puzzle in 8puzzle sliding:2x5 goat klotski oshidori:5; do
    "$one_bin" analyze "$puzzle" --quiet --format json | facts >"$tmp/one"
    for transport in "self,vader" "self,tcp"; do
        for ranks in 1 2 3 4; do
            for bits in 8 2; do
                mpirun "${mpirun_flags[@]}" --mca btl "$transport" -np "$ranks" \
                    "$mpi_bin" analyze "$puzzle" --distributed --bits "$bits" --quiet \
                    --format json >"$tmp/json"
                facts <"$tmp/json" >"$tmp/many"
                if cmp -s "$tmp/one" "$tmp/many"; then
                    bytes=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["exchange"]["bytes_total"])' <"$tmp/json")
                    echo "ok   $puzzle, $ranks rank(s), $bits-bit, btl $transport: same as one process ($bytes bytes exchanged)"
                else
                    echo "FAIL $puzzle, $ranks rank(s), $bits-bit, btl $transport differs from one process"
                    failures=$((failures + 1))
                fi
            done
        done
    done
done

# A rank killed with SIGKILL ends the job: mpirun returns, non-zero, within seconds.
mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze 11puzzle --distributed --quiet \
    >/dev/null 2>"$tmp/killed.err" &
job=$!
sleep 1.5
victim=$(pgrep -f "$mpi_bin analyze 11puzzle --distributed" | tail -1)
kill -9 "$victim"
started=$(date +%s)
status=0
wait "$job" || status=$?
took=$(($(date +%s) - started))
if [ "$status" -ne 0 ] && [ "$took" -le 10 ]; then
    echo "ok   a rank killed with SIGKILL ended the job in ${took} s (exit $status)"
else
    echo "FAIL the job went on after a rank was killed (exit $status after ${took} s)"
    failures=$((failures + 1))
fi

# Bad input: one line, a non-zero exit.
expect_error() {
    local what=$1 pattern=$2
    shift 2
    if "$@" >/dev/null 2>"$tmp/err"; then
        echo "FAIL $what: exit 0"
        failures=$((failures + 1))
    elif grep -q "$pattern" "$tmp/err"; then
        echo "ok   $what: $(grep -m1 'antipode: error' "$tmp/err")"
    else
        echo "FAIL $what: $(cat "$tmp/err")"
        failures=$((failures + 1))
    fi
}
expect_error "outside mpirun" "start it with .mpirun" "$mpi_bin" analyze 8puzzle --distributed
expect_error "a build without the feature" "built without MPI" "$one_bin" analyze 8puzzle --distributed
expect_error "peg solitaire under mpirun" "no ranking" \
    mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze english33 --distributed
[ "$(grep -c 'antipode: error' "$tmp/err")" -eq 2 ] &&
    echo "ok   ... one line from each of the 2 ranks" ||
    { echo "FAIL not one line per rank"; failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
