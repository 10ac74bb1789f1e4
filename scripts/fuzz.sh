#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser (the crate in fuzz/: cargo fuzz, libFuzzer,
# AddressSanitizer): KPuzzle JSON, .tws definitions, peg and block descriptions,
# positions of seven puzzles, table headers and shard manifests. Each target's corpus
# (fuzz/corpus/TARGET, git-ignored) is seeded with the shipped files and the headers of
# real tables, then each target runs SECONDS (default 300). A finding (a panic, a
# crash, a leak, a run over 10 s or 4 GiB) is kept in fuzz/artifacts/TARGET/ and fails
# the script. Needs a nightly toolchain (cargo fuzz builds with -Z flags); installs
# cargo-fuzz with cargo when missing. Not part of CI: scripts/README has the runs.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
all=(kpuzzle_json tws descriptions positions table_headers manifests)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz: cargo fuzz needs a nightly toolchain: rustup toolchain install nightly" >&2
    exit 1
fi
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --version 0.13.2 --locked --quiet

corpus=fuzz/corpus
seed() { # TARGET NAME PREFIX-BYTE-OR-EMPTY FILE (the byte as a decimal number)
    mkdir -p "$corpus/$1"
    { [ -z "$3" ] || printf '%b' "\\$(printf '%03o' "$3")"; cat "$4"; } > "$corpus/$1/seed-$2"
}
for f in src/puzzles/kpuzzle/library/*.json; do seed kpuzzle_json "$(basename "$f")" "" "$f"; done
for f in src/puzzles/peg/library/*.toml; do seed descriptions "peg-$(basename "$f")" 0 "$f"; done
for f in src/puzzles/blocks/library/*.toml; do seed descriptions "blocks-$(basename "$f")" 1 "$f"; done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat > "$scratch/triangle.tws" <<'TWS'
Name Triangle
# three pieces with two orientations, one set at rest
Set P 3 2
Set Q 2 1
Solved
P
1 2 3
Q
1 2
End
Move A
P
2 3 1
1 0 0
End
MoveTransformation B
P
0 2 1
0 1 1
Q
1 0
End
Rotation R
P
2 3 1
End
TWS
seed tws triangle "" "$scratch/triangle.tws"
i=0
for position in "867254301" "0 3 2 1/8 7 6 5/4 11 10 9" "" "R U F' D2" "" "" "U R' L B'"; do
    printf '%s' "$position" > "$scratch/position"
    seed positions "$i" "$i" "$scratch/position"
    i=$((i + 1))
done
cargo build --quiet --release
for bits in 8 2; do
    ./target/release/antipode analyze sliding:2x4 --bits "$bits" --table "$scratch/t$bits.table" -q >/dev/null
    head -c 4096 "$scratch/t$bits.table" > "$scratch/h$bits"
    seed table_headers "depth-$bits" "" "$scratch/h$bits"
done
for f in tests/data/*.table; do
    head -c 4096 "$f" > "$scratch/h"
    seed table_headers "$(basename "$f")" "" "$scratch/h"
done
cat > "$scratch/manifest.toml" <<'TOML'
format = 1
puzzle = "sliding:2x5"
goal = "12345/67890"
definition_sha256 = "3c89dc5967b6f684cff662b0f55a54bc93cdac31069e1afdf13607c0160bfb41"
indices = 1814400
entry_bits = 8
ranks = 2
complete = true

[[shards]]
file = "shard-0-of-2.table"
start = 0
end = 917504
payload_crc32 = "fc3800e2"

[[shards]]
file = "shard-1-of-2.table"
start = 917504
end = 1814400
payload_crc32 = "0a1b2c3d"
TOML
seed manifests valid "" "$scratch/manifest.toml"

failed=()
for target in "${targets[@]}"; do
    echo "fuzz: $target for $seconds s"
    if ! cargo +nightly fuzz run --release "$target" "$corpus/$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        2> "$scratch/$target.log"; then
        failed+=("$target")
        tail -40 "$scratch/$target.log"
    fi
    grep -E '^stat::number_of_executed_units|^Done|cov:' "$scratch/$target.log" | tail -2
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: findings in ${failed[*]} (fuzz/artifacts/)" >&2
    exit 1
fi
echo "ok   no finding in ${targets[*]} ($seconds s each)"
