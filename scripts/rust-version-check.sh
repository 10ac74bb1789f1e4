#!/usr/bin/env bash
# The declared rust-version (Cargo.toml, and the bindings') is the toolchain CI builds
# with: the same minor version as the default rustc, or else an installed toolchain
# of that version that checks every target. Fails with the fix when neither holds.
set -euo pipefail
cd "$(dirname "$0")/.."

declared=$(sed -n 's/^rust-version = "\([0-9.]*\)"/\1/p' Cargo.toml)
for manifest in bindings/c/Cargo.toml bindings/python/Cargo.toml; do
    theirs=$(sed -n 's/^rust-version = "\([0-9.]*\)"/\1/p' "$manifest")
    if [ "$theirs" != "$declared" ]; then
        echo "rust-version: $manifest declares $theirs, Cargo.toml $declared" >&2
        exit 1
    fi
done
default=$(rustc --version | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
if [ "$default" = "$declared" ]; then
    echo "rust-version $declared: the default toolchain (rustc $default) builds everything below"
    exit 0
fi
if rustup run "$declared" rustc --version >/dev/null 2>&1; then
    echo "rust-version $declared: checking every target with that toolchain"
    cargo "+$declared" check --all-targets --release
    exit 0
fi
echo "rust-version: Cargo.toml declares $declared, but the toolchain is rustc $default and" \
    "no $declared toolchain is installed: install it (rustup toolchain install $declared)" \
    "or declare the version CI builds with" >&2
exit 1
