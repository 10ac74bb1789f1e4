#!/usr/bin/env bash
# Times `antipode analyze` on the benchmark puzzles (release build, all cores).
# Prints, per run, wall seconds and peak RSS from /usr/bin/time, then one CSV line per
# run for comparing results over time:
#   date,commit,puzzle,run,wall_seconds,peak_rss_kib,gods_number,antipodes
# Usage: scripts/bench.sh [RUNS] [PUZZLE...]   (default: 3 runs of the standard set)
#        scripts/bench.sh solve                  (the seeds' searches, beside their times)
#        scripts/bench.sh korf100 [RUNS]         (Korf's 100 fifteen-puzzles with the 7-8 databases,
#            read cold once, then RUNS interleaved runs on 1 thread and on all: medians
#            and the ratio)
#        scripts/bench.sh seedc [RUNS]           (the seed page's C searches, built here, beside
#            antipode on one thread and on all: median wall times of RUNS interleaved runs
#            (default 5) and the ratios)
#        scripts/bench.sh slidebfs [RUNS]        (../shared/bench/slide_bfs.c, the hand-tuned C BFS,
#            built here with gcc -O3 -march=native -fopenmp (gcc installed with
#            scripts/apt-install.sh if missing), beside `antipode analyze` in
#            memory: 3x4 and 2x6 on 1 thread and on all, RUNS interleaved runs (default 3),
#            median wall time and peak RSS and the ratio to the C)
#        scripts/bench.sh twobit [RUNS]          (3x4 and 2x6: the 2-bit table against the 8-bit
#            run in memory on 1 thread and on all, interleaved, medians and the ratio)
#        scripts/bench.sh 24puzzle               (the 24-puzzle's 6-6-6-6 databases, then four
#            published positions, 55-80 moves, and three scrambled ones)
#        scripts/bench.sh 2x7 [TABLE]            (43.6 billion states into a 2-bit table: the
#            published histogram asserted, wall time, peak RSS, disk writes, states/s
#            per level; needs 22 GB free beside TABLE, default tables/sliding-2x7-2bit.table)
#        scripts/bench.sh 1 oshidori:7           (the largest Oshidori analysis: ~13 min, 10 GiB)
#        scripts/bench.sh 1 scripts/puzzles/block-3x5.toml   (159,667,200 layouts of the general hash)
#        scripts/bench.sh peg [RUNS]             (peg solitaire by jumps: the English board, RUNS
#            runs (default 3; interleaved with BASELINE's when given), its central game and its
#            table; the French board from the centre and from the corner hole 0, ~5 min each)
#        scripts/bench.sh twisty [RUNS]          (twisty puzzles: analyze 2x2x2 and the 3x3x3's
#            corners RUNS times (default 3), the 3x3x3's corners and six-edge databases built,
#            the ten 14-move scrambles of tests/data and one 18-move scramble (optimal: 16
#            moves) solved with them)
#        scripts/bench.sh edges [DIR]            (the 3x3x3's edges by symmetry classes into a
#            2-bit table in DIR (default tables/, 4.8 GiB; 8.1 GiB of memory): positions per
#            depth asserted, wall time and peak RSS; resumes an interrupted table, ~80 min)
#        scripts/bench.sh fto FTO.tws [DIR]       (the FTO without its centres, up to rotation, by
#            symmetry classes into a 2-bit table in DIR (default tables/): twsearch's
#            samples/main/FTO.tws (cubing/twsearch before commit 0011625, which removed it);
#            the published positions per depth asserted, wall time and peak RSS; resumes
#            an interrupted table, ~16 min and 1.7 GiB from nothing; with BASELINE, the
#            older build first into its own table, the two compared byte for byte; with
#            MEMORY="256MiB 78MiB", then the levels on disk in each size, each table
#            compared byte for byte with the one in memory, the ratio of wall times and
#            the bucket bytes per level; about 23 min at 256MiB and 60 GB of disk free)
#        scripts/bench.sh cn-cross [DIR]         (the colour-neutral cross by symmetry classes into a
#            2-bit table in DIR (default tables/, 4.8 GiB): positions per depth asserted,
#            wall time and peak RSS, then 200 random positions' distances checked against
#            the least of the six crosses' own tables; resumes an interrupted table)
#        scripts/bench.sh compy [DIR]            (the Compy Cube by symmetry classes into a 2-bit
#            table in DIR (default tables/): the published positions per depth asserted
#            (twsearch, 2025), God's number 19 and its 332 antipodes, wall time and peak
#            RSS; resumes an interrupted table; needs 8.4 GB of memory and disk)
#        scripts/bench.sh disk [RUNS]            (levels on disk: 3x4 at 8 bits in memory and with
#            --memory 16MiB, RUNS interleaved runs (default 3), median wall time and peak
#            RSS, the ratio, the two tables compared byte for byte)
#        BASELINE=/path/to/old/antipode scripts/bench.sh 5
#            runs an older build too, interleaved with this one (old, new, old, new...),
#            and ends with the median wall time of each and their ratio per puzzle;
#            slidebfs, twobit, korf100, peg and fto take BASELINE the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every mode times with GNU time (Debian package: time).
[ -x /usr/bin/time ] || bash scripts/apt-install.sh time

# median LABEL FILE: the median of the second column of FILE's lines labelled LABEL.
median_of() {
    awk -v l="$1" '$1 == l { print $2 }' "$2" | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

if [ "${1:-}" = disk ]; then
    runs="${2:-3}"
    cargo build --release --quiet
    bin="$PWD/target/release/antipode"
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    : >"$dir/times"
    for run in $(seq "$runs"); do
        for mode in memory disk; do
            memory=()
            [ "$mode" = disk ] && memory=(--memory 16MiB)
            /usr/bin/time -f "$mode %e %M" -a -o "$dir/times" "$bin" analyze 11puzzle \
                --table "$dir/$mode.table" --force "${memory[@]}" -q >/dev/null
            echo "run $run $mode: $(tail -1 "$dir/times")"
        done
    done
    cmp "$dir/memory.table" "$dir/disk.table"
    m=$(median_of memory "$dir/times")
    d=$(median_of disk "$dir/times")
    rss() { awk -v l="$1" '$1 == l { print $3 }' "$dir/times" | sort -n | tail -1; }
    echo "3x4, 8-bit table: in memory ${m} s ($(rss memory) KiB), --memory 16MiB ${d} s ($(rss disk) KiB): $(echo "$d $m" | awk '{ printf "%.2f", $1 / $2 }')x; tables identical"
    exit 0
fi

if [ "${1:-}" = fto ]; then
    tws="${2:?give the path of the FTO.tws file}"
    dir="${3:-tables}"
    cargo build --release --quiet
    bin="$PWD/target/release/antipode"
    mkdir -p "$dir"
    cp "$tws" "$dir/FTO.tws"
    cd "$dir"
    # Positions by depth: Tomas Rokicki, cubing/twips issue #114 (February 2025).
    expected="1 16 208 2688 34752 444736 5630776 70299419 855239993 9730941773 81185504181 135924475165 2148193926 366"
    fto() { # fto BUILD TABLE [MEMORY]: one run (resuming TABLE; on disk in MEMORY), asserted, its wall time and peak RSS
        /usr/bin/time -f '%e %M' -o fto.time "$1" analyze \
            "FTO.tws --orbits C4RNER+EDGE --up-to-rotation --symmetry" \
            --bits 2 --table "$2" ${3:+--memory "$3"} --show 100 --format json >fto.json 2>fto.err
        read -r wall rss <fto.time
        found=$(python3 -c 'import json,sys; print(*json.load(open("fto.json"))["classes"]["positions_by_depth"])')
        [ "$found" = "$expected" ] || { echo "FTO: positions by depth $found, expected $expected" >&2; exit 1; }
        python3 -c 'import json; a = json.load(open("fto.json")); c = a["classes"]; print("FTO corners+edges: {:,} positions in {:,} classes ({} symmetries, {:,} slots), God number {}, {} antipodes in {} classes".format(c["positions"], a["reachable"], c["symmetries"], a["indices"], a["gods_number"], c["antipode_positions"], a["antipode_count"]))'
        echo "$1: wall $wall s (this run; a resumed table counts only its last part), peak RSS $((rss / 1024)) MiB"
    }
    # With BASELINE, the older build writes its own table first; the two must be
    # byte-identical.
    if [ -n "${BASELINE:-}" ]; then
        fto "$BASELINE" fto-ce-symmetry-baseline.table
        old=$wall
    fi
    fto "$bin" fto-ce-symmetry.table
    if [ -n "${BASELINE:-}" ]; then
        cmp fto-ce-symmetry-baseline.table fto-ce-symmetry.table
        echo "tables byte-identical; wall time $(awk -v a="$wall" -v b="$old" 'BEGIN { printf "%.3fx", a / b }') the baseline's"
    fi
    # With MEMORY (sizes, e.g. "256MiB 78MiB"), the levels on disk in each, after the
    # run in memory: each table byte-identical to it, the ratio of the wall times and
    # the bucket bytes per level.
    in_memory=$wall
    for memory in ${MEMORY:-}; do
        fto "$bin" "fto-ce-symmetry-$memory.table" "$memory"
        cmp fto-ce-symmetry.table "fto-ce-symmetry-$memory.table"
        tr '\r' '\n' <fto.err | grep -E '^depth +[0-9]+ +new' | sed -n 's/.*depth *\([0-9]*\) .*buckets \(.*\)/  level \1: buckets \2/p'
        echo "--memory $memory: table byte-identical; wall time $(awk -v a="$wall" -v b="$in_memory" 'BEGIN { printf "%.2fx", a / b }') the run in memory's"
        rm "fto-ce-symmetry-$memory.table"
    done
    exit 0
fi

# classes_bench DIR LABEL PUZZLE STEM SHOW EXPECTED: `analyze PUZZLE --bits 2 --table` into
# DIR/STEM.table (resumed if interrupted), its positions per depth asserted to be
# EXPECTED, its figures, wall time and peak RSS.
classes_bench() {
    cargo build --release --quiet
    local bin="$PWD/target/release/antipode"
    mkdir -p "$1"
    cd "$1"
    /usr/bin/time -f '%e %M' -o "$4.time" "$bin" analyze "$3" \
        --bits 2 --table "$4.table" --show "$5" --format json >"$4.json"
    read -r wall rss <"$4.time"
    found=$(python3 -c 'import json, sys; print(*json.load(open(sys.argv[1]))["classes"]["positions_by_depth"])' "$4.json")
    [ "$found" = "$6" ] || { echo "$2: positions by depth $found, expected $6" >&2; exit 1; }
    python3 -c 'import json, sys; a = json.load(open(sys.argv[2])); c = a["classes"]; print("{}: {:,} positions in {:,} classes ({} symmetries, {:,} slots), God number {}, {} antipodes in {} classes".format(sys.argv[1], c["positions"], a["reachable"], c["symmetries"], a["indices"], a["gods_number"], c["antipode_positions"], a["antipode_count"]))' "$2" "$4.json"
    echo "wall $wall s (this run; a resumed table counts only its last part), peak RSS $((rss / 1024)) MiB"
}

if [ "${1:-}" = edges ]; then
    # Positions by depth of this project's first run (982036f, 2026-11-30): they sum to
    # the edges' 980,995,276,800 positions; no published histogram is known to us.
    classes_bench "${2:-tables}" "3x3x3 edges" "3x3x3-edges --symmetry" edges-symmetry 1000 \
        "1 18 243 3240 42807 555866 7070103 87801812 1050559626 11588911021 110409721989 552734197682 304786076626 330335518 248"
    exit 0
fi

if [ "${1:-}" = compy ]; then
    # Positions by depth: twsearch's two-bit run, rokicki/twsearch-results,
    # godsnumber/compy_cube-symm-g7.log (July 2025).
    classes_bench "${2:-tables}" "Compy Cube" "compy --symmetry" compy-symmetry 332 \
        "1 16 160 1408 11808 95712 754732 5793810 43183952 310137312 2115556475 13329858542 72848819814 298247080974 671767938009 473215625205 39395024521 84824763 41254 332"
    exit 0
fi

if [ "${1:-}" = cn-cross ]; then
    # The colour-neutral cross by symmetry classes (the edges' whole space), its positions
    # per depth those of L. Vandenbergh's cross study (cubezone.be, 2008), then the
    # distance to the set checked as the least of the six crosses' own distances on
    # 200 random positions (six 190,080-position tables beside it).
    classes_bench "${2:-tables}" "colour-neutral cross" \
        "3x3x3 --goal colour-neutral-cross --symmetry" cn-cross 50 "30942374 462820266 4839379314 41131207644 239671237081 543580917185 151019930400 258842496 40"
    bin="$OLDPWD/target/release/antipode"
    python3 - "$bin" "$OLDPWD/src/puzzles/kpuzzle/library/3x3x3.kpuzzle.json" <<'PY'
import json, random, subprocess, sys
bin, definition = sys.argv[1], sys.argv[2]
crosses = json.load(open(definition))["antipode"]["goals"]["colour-neutral-cross"]
rng = random.Random(2026)
faces, turns = "UDRLFB", ["", "2", "'"]
positions = [" ".join(rng.choice(faces) + rng.choice(turns) for _ in range(25)) for _ in range(200)]
def distances(puzzle, table):
    out = subprocess.run([bin, "lookup", "--table", table, puzzle, *positions],
                         check=True, capture_output=True, text=True).stdout
    return [int(line.split()[0]) for line in out.splitlines()]
least = None
for i, cross in enumerate(crosses):
    table = f"cross-{i}.table"
    subprocess.run([bin, "analyze", f"3x3x3 --goal {cross}", "--table", table, "--force", "-q"],
                   check=True, capture_output=True)
    d = distances(f"3x3x3 --goal {cross}", table)
    least = d if least is None else [min(a, b) for a, b in zip(least, d)]
found = distances("3x3x3 --goal colour-neutral-cross --symmetry", "cn-cross.table")
assert found == least, "the table differs from the least of the six crosses"
print("200 random positions: the table's distance is the least of the six crosses' "
      "(distances {})".format(dict(sorted({d: found.count(d) for d in found}.items()))))
PY
    exit 0
fi

if [ "${1:-}" = twisty ]; then
    runs="${2:-3}"
    cargo build --release --quiet
    bin=target/release/antipode
    timed() { # label, command...: one line of wall seconds and peak RSS
        local label="$1"
        shift
        /usr/bin/time -f '%e %M' -o /tmp/antipode-twisty.time "$@" >/tmp/antipode-twisty.out
        read -r wall rss </tmp/antipode-twisty.time
        printf '%-58s %8s s %8d MiB\n' "$label" "$wall" $((rss / 1024))
    }
    for run in $(seq "$runs"); do
        timed "analyze 2x2x2 (run $run)" "$bin" analyze 2x2x2 -q
        grep -q "god's number    11" /tmp/antipode-twisty.out
        timed "analyze 3x3x3-corners (run $run)" "$bin" analyze 3x3x3-corners -q
        grep -q "reachable       88,179,840" /tmp/antipode-twisty.out
    done
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    timed "pdb 3x3x3 --orbits corners,edges6a,edges6b (built)" \
        "$bin" pdb 3x3x3 --orbits corners,edges6a,edges6b --dir "$dir" -q
    # solve --pdb reads its databases from tables/: build them there once.
    "$bin" pdb 3x3x3 --orbits corners,edges6a,edges6b -q >/dev/null
    grep -v '^#' tests/data/3x3x3-scrambles-14.txt >"$dir/scrambles"
    timed "solve 3x3x3 --pdb ... (ten 14-move scrambles)" \
        "$bin" solve 3x3x3 --pdb corners,edges6a,edges6b - <"$dir/scrambles"
    cat /tmp/antipode-twisty.out
    timed "solve 3x3x3 --pdb ... (18-move scramble, 16 moves)" "$bin" solve 3x3x3 \
        --pdb corners,edges6a,edges6b "D B2 R D2 B2 D2 R2 D2 B R' B D B2 D' L B2 R L"
    cat /tmp/antipode-twisty.out
    exit 0
fi

if [ "${1:-}" = korf100 ]; then
    # Korf's 100 fifteen-puzzles by IDA* with the 7-8 databases and their reflection
    # (built into tables/ on first use, about 3 minutes on 2 cores): one line per
    # instance (length, nodes, seconds, position) on all threads, the totals, then
    # RUNS (default 3) interleaved runs on 1 thread and on all: medians and the ratio.
    runs=${2:-3}
    cargo build --release --quiet
    goal="0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15"
    target/release/antipode pdb 15puzzle --goal "$goal" --partition 7-8
    # The databases leave the page cache, so that the first run reads them back through
    # antipode's mapping, in 2 MiB pages (4 KiB pages left there by other readers make
    # every look-up slower: scripts/README, "Korf's 100 under 0.2 s").
    for table in tables/15puzzle-pdb-1.2.3.4.5.6.7-*.table \
        tables/15puzzle-pdb-8.9.10.11.12.13.14.15-*.table; do
        dd if="$table" iflag=nocache count=0 status=none
    done
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    korf() { # korf THREADS [BUILD [LABEL]]: one run, its totals appended to $dir/runs
        /usr/bin/time -f '%e %M' -o "$dir/time" "${2:-target/release/antipode}" solve 15puzzle \
            --goal "$goal" --pdb 7-8 --threads "$1" <tests/data/korf100.txt >"$dir/out"
        read -r wall rss <"$dir/time"
        awk -v t="${3:-}threads-$1" -v wall="$wall" -v rss="$rss" '{ n++; length_sum += $1; nodes += $2; seconds += $3 }
            END { printf "%s %s %d instances: %d moves in all, %d nodes, %.3f s searching, %s s wall, %d MiB peak\n",
                  t, wall, n, length_sum, nodes, seconds, wall, rss / 1024 }' "$dir/out" >>"$dir/runs"
    }
    threads=$(nproc)
    korf "$threads"
    cat "$dir/out"
    echo "first run, the databases read from disk: $(tail -n 1 "$dir/runs" | cut -d' ' -f3-)"
    : >"$dir/runs"
    for _ in $(seq "$runs"); do
        for t in 1 "$threads"; do
            if [ -n "${BASELINE:-}" ]; then
                korf "$t" "$BASELINE" baseline-
            fi
            korf "$t"
        done
    done
    cut -d' ' -f1,3- "$dir/runs"
    one=$(median_of threads-1 "$dir/runs")
    all=$(median_of "threads-$threads" "$dir/runs")
    echo "median wall: 1 thread $one s, $threads threads $all s:" \
        "$(awk -v a="$one" -v b="$all" 'BEGIN { printf "%.2fx", a / b }')"
    if [ -n "${BASELINE:-}" ]; then
        for t in 1 "$threads"; do
            old=$(median_of "baseline-threads-$t" "$dir/runs")
            new=$(median_of "threads-$t" "$dir/runs")
            echo "median wall on $t thread(s): baseline $old s, this build $new s:" \
                "$(awk -v a="$new" -v b="$old" 'BEGIN { printf "%.3fx", a / b }') the baseline"
        done
    fi
    exit 0
fi

if [ "${1:-}" = slidebfs ] || [ "${1:-}" = twobit ]; then
    mode=$1
    runs=${2:-3}
    if [ "$mode" = slidebfs ]; then
        command -v gcc >/dev/null || bash scripts/apt-install.sh gcc
    fi
    cargo build --release --quiet
    bin=$PWD/target/release/antipode
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    if [ "$mode" = slidebfs ]; then
        gcc -O3 -march=native -fopenmp -o "$dir/slide_bfs" ../shared/bench/slide_bfs.c
    fi
    threads=$(nproc)
    # timed LABEL COMMAND...: appends "LABEL seconds" and "LABEL-rss KiB" to the log.
    timed() {
        local label=$1
        shift
        /usr/bin/time -f "$label %e"$'\n'"$label-rss %M" -a -o "$dir/times" "$@" >/dev/null 2>&1
    }
    boards=("3 4 11puzzle" "2 6 sliding:2x6")
    # With BASELINE, an older build runs each command too, just before this one.
    labels=(bin) paths=("$bin")
    if [ -n "${BASELINE:-}" ]; then
        labels=(baseline bin) paths=("$BASELINE" "$bin")
    fi
    for _ in $(seq "$runs"); do
        for board in "${boards[@]}"; do
            read -r rows cols name <<<"$board"
            if [ "$mode" = slidebfs ]; then
                for t in 1 "$threads"; do
                    timed "c-${rows}x$cols-$t" "$dir/slide_bfs" "$rows" "$cols" "$t"
                    for i in "${!labels[@]}"; do
                        timed "${labels[i]}-a-${rows}x$cols-$t" "${paths[i]}" analyze "$name" \
                            --threads "$t" -q --show 0
                    done
                done
            else
                for t in 1 "$threads"; do
                    for i in "${!labels[@]}"; do
                        timed "${labels[i]}-m8-${rows}x$cols-$t" "${paths[i]}" analyze "$name" \
                            --threads "$t" -q --show 0
                        rm -f "$dir/t.table"
                        timed "${labels[i]}-t2-${rows}x$cols-$t" "${paths[i]}" analyze "$name" \
                            --threads "$t" -q --show 0 --bits 2 --table "$dir/t.table"
                    done
                done
            fi
        done
    done
    echo "median of $runs interleaved runs each: wall time, peak RSS"
    row() { # row LABEL WHAT REFERENCE-LABEL REFERENCE-NAME
        local m r k
        m=$(median_of "$1" "$dir/times")
        r=$(median_of "$3" "$dir/times")
        k=$(median_of "$1-rss" "$dir/times")
        printf "%-50s %7.2f s %8.1f MiB  %s\n" "$2" "$m" "$(awk -v k="$k" 'BEGIN { print k / 1024 }')" \
            "$(awk -v m="$m" -v r="$r" -v same="$([ "$1" = "$3" ] && echo 1)" \
                -v name="${4:-}" 'BEGIN { if (!same) printf "%.2fx %s", m / r, name }')"
    }
    for board in "${boards[@]}"; do
        read -r rows cols name <<<"$board"
        b="${rows}x$cols"
        if [ "$mode" = slidebfs ]; then
            for t in 1 "$threads"; do
                row "c-$b-$t" "slide_bfs $rows $cols $t (C, in memory)" "c-$b-$t"
                row "bin-a-$b-$t" "antipode analyze $name --threads $t" "c-$b-$t" "the C"
                if [ -n "${BASELINE:-}" ]; then
                    row "baseline-a-$b-$t" "    baseline" "c-$b-$t" "the C"
                    row "bin-a-$b-$t" "    this build" "baseline-a-$b-$t" "the baseline"
                fi
            done
        else
            for t in 1 "$threads"; do
                row "bin-m8-$b-$t" "antipode analyze $name --threads $t (8-bit)" "bin-m8-$b-$t"
                row "bin-t2-$b-$t" "... --bits 2 --table (2-bit table)" "bin-m8-$b-$t" "the 8-bit run"
                if [ -n "${BASELINE:-}" ]; then
                    row "bin-m8-$b-$t" "    8-bit against the baseline" "baseline-m8-$b-$t" "the baseline"
                    row "bin-t2-$b-$t" "    2-bit against the baseline" "baseline-t2-$b-$t" "the baseline"
                fi
            done
        fi
    done
    exit 0
fi

if [ "${1:-}" = seedc ]; then
    # Seed 000's two C programs, taken from the page into a temporary folder and built
    # with gcc -O2: eight3.c (plain iterative deepening of the 8-puzzle from 867254301,
    # every solution) and eleven.c (IDA* with Manhattan distance, the 53-move 3x4
    # position). Each is run beside antipode's same search, interleaved.
    runs=${2:-5}
    cargo build --release --quiet
    bin=$PWD/target/release/antipode
    page=$(ls ../shared/seeds/000_*.txt)
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    for program in eight3 eleven; do
        awk -v name="$program.c" 'index($0, " * " name " :") == 1 { on = 1; print "/*" }
            on && (/^●/ || /^初版/) { exit } on { print }' "$page" >"$dir/$program.c"
        gcc -O2 -o "$dir/$program" "$dir/$program.c"
    done
    eleven=(solve 11puzzle "0 3 2 1/8 7 6 5/4 11 10 9")
    eight=(solve 8puzzle 867254301 --method iddfs --all)
    threads=$(nproc)
    echo "nodes: IDA* $("$bin" "${eleven[@]}" --threads 1 --format json | awk -F'[:,]' '/"nodes"/ { print $2 + 0 }'),"\
        "IDDFS $("$bin" "${eight[@]}" --threads 1 --format json | awk -F'[:,]' '/"nodes"/ { print $2 + 0 }')"
    timed() { # timed LABEL COMMAND...: appends "LABEL seconds" to the log
        local label=$1
        shift
        /usr/bin/time -f "$label %e" -a -o "$dir/times" "$@" >/dev/null
    }
    for _ in $(seq "$runs"); do
        timed eleven.c "$dir/eleven"
        timed ida-1 "$bin" "${eleven[@]}" --threads 1
        timed ida-all "$bin" "${eleven[@]}"
        timed eight3.c "$dir/eight3"
        timed iddfs-1 "$bin" "${eight[@]}" --threads 1
        timed iddfs-all "$bin" "${eight[@]}"
    done
    line() { # line LABEL WHAT C-LABEL
        local m c
        m=$(median_of "$1" "$dir/times")
        c=$(median_of "$3" "$dir/times")
        printf "%-48s %8.2f s  %s\n" "$2" "$m" \
            "$(awk -v m="$m" -v c="$c" -v l="$1" 'BEGIN { if (l ~ /\.c$/) print ""; else printf "%.2f of the C", m / c }')"
    }
    echo "median of $runs interleaved runs each, wall time"
    line eleven.c "eleven.c, gcc -O2 (IDA*, 3x4, 53 moves)" eleven.c
    line ida-1 "antipode, 1 thread" eleven.c
    line ida-all "antipode, $threads threads" eleven.c
    line eight3.c "eight3.c, gcc -O2 (IDDFS, 8-puzzle, all 40)" eight3.c
    line iddfs-1 "antipode --method iddfs --all, 1 thread" eight3.c
    line iddfs-all "antipode --method iddfs --all, $threads threads" eight3.c
    exit 0
fi

if [ "${1:-}" = 24puzzle ]; then
    # The 6-6-6-6 databases of the 24-puzzle (blank last; built into tables/ on first
    # use, about 4 minutes and 1.9 GB), then positions by IDA* with them: the four of
    # the Nit language's `puzzle` test (published as 55, 75, 79 and 80 moves) and
    # three from random walks of 60 and 100 moves (66, 60 and 64 moves).
    cargo build --release --quiet
    /usr/bin/time -f 'databases: %e s wall, %M KiB peak' target/release/antipode pdb 24puzzle \
        --partition 6-6-6-6
    /usr/bin/time -f 'positions: %e s wall, %M KiB peak' target/release/antipode solve 24puzzle \
        --pdb 6-6-6-6 <<'POSITIONS'
7 9 1 2 3/10 5 11 13 4/8 18 20 6 12/17 19 15 23 14/16 21 22 0 24
7 9 1 2 3/10 5 11 13 4/18 20 23 21 12/8 19 0 22 14/17 15 6 16 24
7 9 1 2 3/10 5 11 13 4/18 20 23 0 21/8 19 22 14 12/17 15 6 16 24
7 9 1 2 3/10 5 11 13 4/18 20 0 23 21/8 19 22 14 12/17 15 6 16 24
13 3 5 20 9/2 7 8 14 18/0 11 1 19 4/16 17 6 10 15/12 21 23 22 24
1 12 2 3 0/21 6 8 7 10/19 11 4 9 5/17 16 23 24 15/22 18 20 14 13
12 9 4 8 14/2 1 3 15 5/21 17 7 10 0/11 16 6 19 20/13 22 23 24 18
POSITIONS
    exit 0
fi

if [ "${1:-}" = peg ]; then
    runs=${2:-3}
    cargo build --release --quiet
    bin=$PWD/target/release/antipode
    timed() { # label, command...: one line of wall seconds and peak MiB
        local label=$1
        shift
        /usr/bin/time -f '%e %M' -o /tmp/antipode-peg.time "$@" >/tmp/antipode-peg.out 2>/dev/null
        read -r wall rss </tmp/antipode-peg.time
        printf '%-52s %8s s %7d MiB\n' "$label" "$wall" "$((rss / 1024))"
    }
    json() { sed -n "s/^  \"$1\": \(.*\),\?$/\1/p" /tmp/antipode-peg.out | tr -d ','; }
    holes() { awk -v key="\"$1\":" '$1 == key { on = 1 } on { printf "%s", $0 } on && /\]/ { exit }' \
        /tmp/antipode-peg.out | tr -d ' ' | sed 's/.*:\[//; s/\].*//'; }
    for ((run = 1; run <= runs; run++)); do
        if [ -n "${BASELINE:-}" ]; then
            timed "baseline: analyze english33" "$BASELINE" analyze english33
        fi
        timed "analyze english33" "$bin" analyze english33 -q --format json
        echo "  reachable $(json reachable) (published: 187636299)"
    done
    timed "analyze english33 --symmetry" "$bin" analyze english33 -q --symmetry --format json
    echo "  up to symmetry $(json reachable_up_to_symmetry) (published: 23475688)"
    timed "solve english33" "$bin" solve english33 --format json
    echo "  $(json length) moves (published: 18)"
    table=$(mktemp -d)
    timed "analyze english33 --table" "$bin" analyze english33 -q --table "$table/e.table"
    echo "  table $(stat -c %s "$table/e.table") bytes"
    rm -rf "$table"
    timed "analyze french37 (centre empty)" "$bin" analyze french37 -q --format json
    echo "  reachable $(json reachable), one peg left at holes: [$(holes one_peg_finishes)]"
    timed "analyze french37 --from hole 0 empty" "$bin" analyze french37 -q --format json \
        --from 0111111111111111111111111111111111111
    echo "  reachable $(json reachable), one peg left at holes: [$(holes one_peg_finishes)]"
    exit 0
fi

if [ "${1:-}" = 2x7 ]; then
    cargo build --release --quiet
    table=${2:-tables/sliding-2x7-2bit.table}
    log=$(mktemp)
    /usr/bin/time -f '%e %M %O' -o "$log.time" target/release/antipode analyze sliding:2x7 \
        --bits 2 --table "$table" --force --show 1 --format json >"$log.json" 2>"$log.levels"
    read -r wall rss writes <"$log.time"
    # The histogram from the JSON report, one count per line, against the published one.
    sed -n '/"histogram"/,/]/p' "$log.json" | grep -o '[0-9]\+' >"$log.found"
    grep -v '^#' tests/data/sliding-2x7-histogram.txt | tr -s ' ' '\n' | grep . >"$log.published"
    # States per second per level: new states over the level's own time (checkpoints,
    # reported on their own lines, taken out).
    awk '/^checkpoint/ { ck += $(NF - 1); cks += $(NF - 1); n++ }
         /^depth/ { gsub(",", "", $4); t = $7; own = t - last - ck
             rate = own >= 0.0005 ? $4 / own / 1e6 : 0
             if ($2 > 0) printf "%3d %14d %9.3f s %8.1f M/s %s\n", $2, $4, own, rate, $9
             last = t; ck = 0 }
         END { printf "%d checkpoints, %.1f s in all\n", n, cks }' "$log.levels"
    printf '2x7: %s s wall, peak RSS %d MiB, %d GB written\n' "$wall" "$((rss / 1024))" \
        "$((writes * 512 / 1000000000))"
    if cmp -s "$log.found" "$log.published"; then
        echo "histogram: the published 109 counts (God's number 108, one antipode), exactly"
        rm -f "$log" "$log".*
    else
        echo "histogram DIFFERS from tests/data/sliding-2x7-histogram.txt (see $log.found)" >&2
        exit 1
    fi
    exit 0
fi

if [ "${1:-}" = solve ]; then
    cargo build --release --quiet
    bin=target/release/antipode
    echo "search                                   wall_s  peak_rss_MiB  result      seed"
    run() { # label, seed time, command...
        local label=$1 seed=$2
        shift 2
        /usr/bin/time -f '%e %M' -o /tmp/antipode-bench.time "$bin" "$@" --format json >/tmp/antipode-bench.out
        read -r wall rss </tmp/antipode-bench.time
        local length solutions
        length=$(sed -n 's/^  "\(length\|goal_moves\)": \([0-9]*\).*/\2/p' /tmp/antipode-bench.out)
        solutions=$(grep -c '^    \[' /tmp/antipode-bench.out || true)
        local result="${length} moves"
        if [ "$solutions" -gt 0 ]; then result="$result x${solutions}"; fi
        printf '%-40s %7s %13s  %-12s  %s\n' "$label" "$wall" "$(awk -v k="$rss" 'BEGIN {print int(k / 1024)}')" \
            "$result" "$seed"
    }
    run "8puzzle 867254301 IDA* --all" "5 ms (C, i5-6200U)" solve 8puzzle 867254301 --all
    run "8puzzle 867254301 IDDFS" "2 m 58 s (Scheme)" solve 8puzzle 867254301 --method iddfs
    run "11puzzle 0321/8765/4BA9 IDA*" "15 s (C)" solve 11puzzle "0 3 2 1/8 7 6 5/4 11 10 9"
    run "goat START IDA*" "< 1 s (C, Pentium 166)" solve goat --method ida
    run "goat 67BB/4528/.931 IDA*" "511 s (C, Pentium 166)" solve goat 67BB/4528/.931 --method ida
    run "goat 67BB/4528/.931 bidirectional" "-" solve goat 67BB/4528/.931
    run "oshidori:8 IDA*" "2.08 s (C, bidir. BFS)" solve oshidori:8
    run "oshidori:8 bidirectional BFS" "2.08 s (C, i5-6200U)" solve oshidori:8 --method bibfs
    run "oshidori:9 IDA*" "- (seed stops at 8)" solve oshidori:9
    run "hoppers --all --first 0-6" "-" solve hoppers --all --first 0-6
    run "english33 fewest moves (BFS over moves)" "18 (Bergholt 1912)" solve english33
    exit 0
fi

runs=${1:-3}
shift || true
puzzles=("$@")
if [ ${#puzzles[@]} -eq 0 ]; then
    puzzles=(8puzzle goat sliding:2x5 11puzzle sliding:2x6)
fi

cargo build --release --quiet
bin=target/release/antipode
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
today=$(date -u +%Y-%m-%dT%H:%M:%SZ)
csv=()

builds=("$bin")
labels=("$commit")
if [ -n "${BASELINE:-}" ]; then
    builds=("$BASELINE" "$bin")
    labels=(baseline "$commit")
fi

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
printf '%-14s %-10s %4s %10s %12s %6s %10s\n' puzzle build run wall_s peak_rss_MiB gods antipodes
# Runs are interleaved (all puzzles and builds, then again) so that noise from a shared
# machine spreads over every puzzle and build alike.
for run in $(seq 1 "$runs"); do
    for puzzle in "${puzzles[@]}"; do
        for k in "${!builds[@]}"; do
            out=$(mktemp)
            /usr/bin/time -f '%e %M' -o "$out.time" "${builds[$k]}" analyze "$puzzle" --quiet --show 0 --format json >"$out"
            read -r wall rss <"$out.time"
            gods=$(sed -n 's/.*"gods_number": \([0-9]*\).*/\1/p' "$out")
            antipodes=$(sed -n 's/.*"antipode_count": \([0-9]*\).*/\1/p' "$out")
            rm -f "$out" "$out.time"
            printf '%-14s %-10s %4s %10s %12.1f %6s %10s\n' "$puzzle" "${labels[$k]}" "$run" "$wall" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$gods" "$antipodes"
            csv+=("$today,${labels[$k]},$puzzle,$run,$wall,$rss,$gods,$antipodes")
        done
    done
done

echo
echo "date,commit,puzzle,run,wall_seconds,peak_rss_kib,gods_number,antipodes"
printf '%s\n' "${csv[@]}"

if [ ${#builds[@]} -eq 2 ]; then
    echo
    echo "median wall seconds: puzzle, baseline, $commit, $commit/baseline"
    for puzzle in "${puzzles[@]}"; do
        printf '%s\n' "${csv[@]}" | awk -F, -v p="$puzzle" -v new="$commit" '
            $3 == p && $2 == "baseline" { b[nb++] = $5 }
            $3 == p && $2 == new { n[nn++] = $5 }
            function median(a, len,   i, j, t) {
                for (i = 0; i < len; i++) for (j = i + 1; j < len; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                return len % 2 ? a[int(len / 2)] : (a[len / 2 - 1] + a[len / 2]) / 2
            }
            END { mb = median(b, nb); mn = median(n, nn); printf "%-14s %8.3f %8.3f %7.3f\n", p, mb, mn, mn / mb }'
    done
fi
