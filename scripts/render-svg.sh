#!/usr/bin/env bash
# Renders an SVG (e.g. a histogram from `antipode plot` or `analyze --plot`) to a PNG
# with headless Chromium, to check that browsers draw it as intended.
# Usage: scripts/render-svg.sh FILE.svg [OUT.png]     (default OUT: FILE.png)
# Installs Debian's `chromium` package when it is missing (scripts/apt-install.sh).
set -euo pipefail
svg=${1:?usage: scripts/render-svg.sh FILE.svg [OUT.png]}
png=${2:-${svg%.svg}.png}
command -v chromium >/dev/null || bash "$(dirname "$0")/apt-install.sh" chromium
# The picture's own size (antipode's plots are 960x540).
size=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$svg" | head -1)
# No network here: without the background-networking flags Chromium keeps trying hosts.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d)" \
    --window-size="${size:-960,540}" --screenshot="$(realpath -m "$png")" \
    "file://$(realpath "$svg")" 2>/dev/null
echo "$png"
