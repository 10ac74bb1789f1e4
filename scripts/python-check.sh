#!/usr/bin/env bash
# The Python package (bindings/python): formats and lints its Rust, builds the wheel
# with maturin in a virtual environment (target/python-venv; maturin, numpy, pytest and
# mypy installed with pip when missing), installs it, runs its pytest tests and checks
# its type stubs with mypy's stubtest, and an example solver against the command line
# (PARTITION=SIZES: its pattern databases, default 6-6-3). CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import maturin, numpy, pytest, mypy' 2>/dev/null ||
    "$venv/bin/pip" install --quiet 'maturin>=1.9,<2' numpy pytest mypy
# The main target folder, so that the dependencies are built once (bindings/python/
# Cargo.lock keeps the main lock's versions).
export CARGO_TARGET_DIR=$PWD/target
cargo fmt --manifest-path bindings/python/Cargo.toml -- --check
cargo clippy --quiet --release --manifest-path bindings/python/Cargo.toml -- -D warnings
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
(cd bindings/python && "../../$venv/bin/maturin" build --quiet --release --out "$wheels")
"$venv/bin/pip" install --quiet --force-reinstall --no-deps "$wheels"/antipode-*.whl
# pytest's exit code 5 means no test ran: that is a failure here too.
status=0
(cd "$wheels" && "$OLDPWD/$venv/bin/python" -m pytest -q "$OLDPWD/bindings/python/tests") || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no test"
    exit 1
fi
if [ "$status" -ne 0 ]; then
    exit "$status"
fi
# The type stubs against the module as built (every name, signature and default).
(cd "$wheels" && "$OLDPWD/$venv/bin/python" -m mypy.stubtest antipode \
    --allowlist "$OLDPWD/bindings/python/stubtest-allowlist.txt")
echo "ok   antipode.pyi matches the built module (mypy stubtest)"
# Another solver: the example's IDA* in Python over pattern databases (built into
# tables/ on first use) must find the lengths `antipode solve --pdb` finds. The 6-6-3
# databases build in seconds where the example's default, 7-8, takes 90 s.
goal="0 1 2 3/4 5 6 7/8 9 10 11/12 13 14 15"
sizes=${PARTITION:-6-6-3}
cargo build --quiet --release
grep -v '^#' tests/data/korf100.txt | head -10 >"$wheels/ten.txt"
target/release/antipode pdb 15puzzle --goal "$goal" --partition "$sizes" --quiet >/dev/null
target/release/antipode solve 15puzzle --goal "$goal" --pdb "$sizes" <"$wheels/ten.txt" |
    awk '{ print $1 }' >"$wheels/cli.txt"
"$venv/bin/python" bindings/python/examples/korf_ida.py "$wheels/ten.txt" 10 "$sizes" |
    tee "$wheels/py.out"
grep -v instances "$wheels/py.out" | awk '{ print $1 }' >"$wheels/py.txt"
if ! cmp -s "$wheels/cli.txt" "$wheels/py.txt"; then
    echo "FAIL the Python IDA*'s lengths differ from antipode solve --pdb $sizes's"
    exit 1
fi
echo "ok   the Python IDA* finds the CLI's ten lengths: $(tr '\n' ' ' <"$wheels/py.txt")"
