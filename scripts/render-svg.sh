#!/usr/bin/env bash
# Renders an SVG (e.g. a histogram from `antipode plot` or `analyze --plot`) to a PNG
# with headless Chromium, to check that browsers draw it as intended.
# Usage: scripts/render-svg.sh FILE.svg [OUT.png]     (default OUT: FILE.png)
# Installs Debian's `chromium` package when it is missing (needs root and apt).
set -euo pipefail
svg=${1:?usage: scripts/render-svg.sh FILE.svg [OUT.png]}
png=${2:-${svg%.svg}.png}
if ! command -v chromium >/dev/null; then
    apt-get install -y chromium >/dev/null
fi
# The picture's own size (antipode's plots are 960x540).
size=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)" height="\([0-9]*\)".*/\1,\2/p' "$svg" | head -1)
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size="${size:-960,540}" --screenshot="$(realpath -m "$png")" \
    "file://$(realpath "$svg")" 2>/dev/null
echo "$png"
