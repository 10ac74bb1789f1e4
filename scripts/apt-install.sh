#!/usr/bin/env bash
# Installs Debian packages with apt-get: `scripts/apt-install.sh PACKAGE...`. As root it
# runs apt-get itself, otherwise through sudo; the package lists are refreshed first (a
# fresh machine has none). Every script that installs a Debian package calls this, so
# the one form that works as root and as a user lives here.
set -euo pipefail
if [ "$#" -eq 0 ]; then
    echo "usage: scripts/apt-install.sh PACKAGE..." >&2
    exit 2
fi
apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
        echo "apt-install: installing $* needs root or sudo" >&2
        exit 1
    fi
    apt=(sudo "${apt[@]}")
fi
echo "installing $* (apt-get)" >&2
"${apt[@]}" update -qq
"${apt[@]}" install -y -qq "$@" >/dev/null
