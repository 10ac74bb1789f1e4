#!/usr/bin/env bash
# The C interface (bindings/c): builds its static and shared libraries, checks that
# the kept header is what cbindgen generates from the Rust source, compiles the C
# examples with cc against both libraries and runs them: the contract checks (on an
# 8-puzzle table, copies of it truncated and corrupted, and 4-4 databases), and a
# lookup of the 3x4 position `0 3 2 1/8 7 6 5/4 11 10 9`, which must print 53, and of
# positions in a table of symmetry classes.
# Installs cbindgen with cargo when it is missing. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cbindgen >/dev/null || cargo install cbindgen --version 0.29.2 --locked --quiet
# A member of the main workspace: it links the library the command line's build made.
cargo fmt -p antipode-c -- --check
cargo clippy --quiet --release -p antipode-c -- -D warnings
cargo build --quiet --release -p antipode-c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd bindings/c && cbindgen --quiet --config cbindgen.toml --output "$tmp/antipode.h")
if ! diff -u bindings/c/antipode.h "$tmp/antipode.h"; then
    echo "bindings/c/antipode.h is stale: regenerate it (bindings/c/cbindgen.toml says how)"
    exit 1
fi
echo "ok   bindings/c/antipode.h is what cbindgen generates"
lib=target/release
cc -O2 -Wall -Wextra -Werror -I bindings/c -o "$tmp/checks" bindings/c/examples/checks.c \
    "$lib/libantipode.a" -lm -lpthread -ldl
cargo build --quiet --release
target/release/antipode analyze 8puzzle --table "$tmp/8puzzle.table" --quiet >/dev/null
"$tmp/checks" "$tmp/8puzzle.table" "$tmp"
cc -O2 -Wall -Wextra -Werror -I bindings/c -o "$tmp/lookup" bindings/c/examples/lookup.c \
    -L"$lib" -lantipode -Wl,-rpath,"$PWD/$lib"
target/release/antipode analyze 11puzzle --table "$tmp/11puzzle.table" --quiet >/dev/null
answer=$("$tmp/lookup" "$tmp/11puzzle.table" "0 3 2 1/8 7 6 5/4 11 10 9")
if [ "$answer" != 53 ]; then
    echo "FAIL the C example printed '$answer' for 0 3 2 1/8 7 6 5/4 11 10 9, not 53"
    exit 1
fi
echo "ok   the C example (shared library) prints 53 for 0 3 2 1/8 7 6 5/4 11 10 9"
if "$tmp/lookup" "$tmp/11puzzle.table" "0 3 2 1/8 7 6 5/4 11 10" 2>"$tmp/err"; then
    echo "FAIL a position of the wrong size was answered"
    exit 1
fi
grep -q "wrong size" "$tmp/err"
echo "ok   a bad position is one line from the library: $(cat "$tmp/err")"
# A table of symmetry classes: the library brings a position to its class's index, so a
# position and its images under a rotation and a mirror get the same answer.
target/release/antipode analyze "3x3x3-corners --symmetry" --table "$tmp/corners.table" \
    --quiet >/dev/null
for position in "R U F'" "F U L'" "L' U' F"; do
    answer=$("$tmp/lookup" "$tmp/corners.table" "$position")
    if [ "$answer" != 3 ]; then
        echo "FAIL the class table answered '$answer' for $position, not 3"
        exit 1
    fi
done
echo "ok   a table of classes answers 3 for R U F' and its rotation and mirror images"
