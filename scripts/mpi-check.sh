#!/usr/bin/env bash
# The partitioned search under MPI (the `antipode-mpi` package, mpi/): installs
# OpenMPI and libclang with apt-get when they are missing, builds
# target/release/antipode-mpi, and checks under `mpirun` with 1 to 4
# ranks (oversubscribed), once over shared memory and once forced onto TCP over
# loopback, that the histograms, God's numbers and antipodes of 8puzzle, 2x5, Goat,
# Klotski, Oshidori:5 and the Pyraminx's symmetry classes (with the positions per depth
# behind them, in memory and in shards) equal the single process's; that a 3-rank 2x5
# table in shards
# holds the single table's entries; that a rank killed with SIGKILL ends the whole job,
# and, while a table is built, that the same command resumes it to byte-identical
# shards (another rank count refused); and that bad input is one line and a non-zero
# exit. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

# mpicc comes with the headers (libopenmpi-dev); bindgen needs libclang itself
# (libclang.so, from libclang-dev: libclang-cpp.so is another library).
if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null ||
    ! compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null; then
    bash scripts/apt-install.sh libopenmpi-dev openmpi-bin libclang-dev
fi

cargo fmt --all -- --check
# One workspace: the MPI binary links the library (and its dependencies) as built for
# the plain binary, and compiles only the command line's sources again.
cargo clippy --quiet --release -p antipode-mpi -- -D warnings
cargo build --quiet --release -p antipode-mpi
cargo build --quiet --release
mpi_bin=target/release/antipode-mpi
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
print(json.dumps([a["histogram"], a["gods_number"], a["antipode_count"], a["antipodes"],
                  a.get("classes")]))'
}

failures=0

# A command that must fail with one line matching a pattern, and a non-zero exit.
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
# After expect_error under `mpirun -np 2`: one error line from each rank.
one_line_per_rank() {
    if [ "$(grep -c 'antipode: error' "$tmp/err")" -eq 2 ]; then
        echo "ok   ... one line from each of the 2 ranks"
    else
        echo "FAIL not one line per rank"
        failures=$((failures + 1))
    fi
}

# "pyraminx --symmetry": classes of positions, one index per class, over MPI too.
for puzzle in 8puzzle sliding:2x5 goat klotski oshidori:5 "pyraminx --symmetry"; do
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

# Classes in shards: positions per depth as one process counts them.
"$one_bin" analyze "pyraminx --symmetry" --quiet --format json | facts >"$tmp/one"
mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze "pyraminx --symmetry" --distributed \
    --bits 2 --table "$tmp/pyraminx-classes" --quiet --format json | facts >"$tmp/many"
if cmp -s "$tmp/one" "$tmp/many" && grep -q positions_by_depth "$tmp/many"; then
    echo "ok   pyraminx --symmetry, 2 shards: positions per depth as one process counts them"
else
    echo "FAIL pyraminx --symmetry, 2 shards: $(cat "$tmp/many")"
    failures=$((failures + 1))
fi

# Tables in shards: a 3-rank 2x5 table, read through its manifest by one process,
# holds every index's entry exactly as the single process's table does.
for bits in 8 2; do
    mpirun "${mpirun_flags[@]}" -np 3 "$mpi_bin" analyze sliding:2x5 --distributed \
        --bits "$bits" --table "$tmp/2x5-$bits" --quiet >/dev/null
    "$one_bin" analyze sliding:2x5 --bits "$bits" --table "$tmp/2x5-$bits.table" --quiet >/dev/null
    if python3 - "$tmp/2x5-$bits" "$tmp/2x5-$bits.table" <<'PY'
import pathlib, struct, sys, tomllib
folder, single = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
manifest = tomllib.loads((folder / "manifest.toml").read_text())
def payload(path):  # the entries only: a table of format 3 ends with block checksums
    data = path.read_bytes()
    return data[4096:4096 + struct.unpack_from("<Q", data, 160)[0]]
joined = b"".join(payload(folder / s["file"]) for s in manifest["shards"])
sys.exit(0 if manifest["complete"] and joined == payload(single) else 1)
PY
    then
        "$one_bin" verify "$tmp/2x5-$bits" >/dev/null
        echo "ok   2x5, 3 shards, $bits-bit: every entry equals the single table's; verify passes"
    else
        echo "FAIL 2x5, 3 shards, $bits-bit: the shards differ from the single table"
        failures=$((failures + 1))
    fi
done

# The Python package (built by scripts/python-check.sh, which CI runs first) opens the
# folder like a table file: every index's distance equals the single table's.
python=target/python-venv/bin/python
if "$python" -c 'import antipode' 2>/dev/null; then
    if "$python" - "$tmp/2x5-8" "$tmp/2x5-8.table" <<'PY'
import sys, numpy, antipode
sharded = antipode.Table.open(sys.argv[1], verify=True)
single = antipode.Table.open(sys.argv[2], verify=True)
every = numpy.arange(1_814_400, dtype=numpy.uint64)
same = (sharded.distances(every) == single.distances(every)).all()
sys.exit(0 if same and sharded.distance("05321/94876") == 55 else 1)
PY
    then
        echo "ok   Python: Table.open on the 3-shard folder gives all 1,814,400 distances of the single table"
    else
        echo "FAIL Python: the 3-shard folder's distances differ from the single table's"
        failures=$((failures + 1))
    fi
else
    echo "skip Python: no package in $python (scripts/python-check.sh builds it)"
fi

# A rank killed with SIGKILL while the table is built; the same command resumes to
# shards byte-identical to an uninterrupted run; another rank count is refused.
table_run() {
    mpirun "${mpirun_flags[@]}" -np "$1" "$mpi_bin" analyze 11puzzle --distributed --bits 2 \
        --table "$2" --checkpoint-every 0 --quiet --format json
}
table_run 2 "$tmp/whole" >/dev/null
table_run 2 "$tmp/killed" >/dev/null 2>&1 &
job=$!
sleep 3
kill -9 "$(pgrep -f "$mpi_bin analyze 11puzzle --distributed" | tail -1)"
wait "$job" || true
levels=$("$one_bin" info "$tmp/killed" | awk '/^levels/ {print $2}')
expect_error "resume with another rank count" "built by 2 ranks, not 3" table_run 3 "$tmp/killed"
table_run 2 "$tmp/killed" >/dev/null
same=yes
for f in shard-0-of-2.table shard-1-of-2.table manifest.toml; do
    cmp -s "$tmp/whole/$f" "$tmp/killed/$f" || same=no
done
if [ "$same" = yes ] && [ -n "$levels" ]; then
    echo "ok   killed after $levels durable level(s), resumed: shards and manifest byte-identical to an uninterrupted run"
else
    echo "FAIL the resumed table differs from an uninterrupted run (killed at ${levels:-?} levels)"
    failures=$((failures + 1))
fi

# Bad input: one line, a non-zero exit.
expect_error "outside mpirun" "start it with .mpirun" "$mpi_bin" analyze 8puzzle --distributed
expect_error "a build without the feature" "built without MPI" "$one_bin" analyze 8puzzle --distributed
expect_error "peg solitaire under mpirun" "no ranking" \
    mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze english33 --distributed
one_line_per_rank
touch "$tmp/a-file"
expect_error "--table naming a file under mpirun" "a table in shards is a folder" \
    mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze 8puzzle --distributed --table "$tmp/a-file"
expect_error "--table without its folder" "name its folder" \
    mpirun "${mpirun_flags[@]}" -np 2 "$mpi_bin" analyze 8puzzle --distributed --table
one_line_per_rank

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
