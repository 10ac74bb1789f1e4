#!/usr/bin/env bash
# The shell scripts checked without running them: `bash -n` (syntax) and ShellCheck on
# scripts/*.sh and .ci/run, plus one rule ShellCheck lacks: an assignment after an
# expanded first word (`$sudo NAME=value cmd`) is not an assignment when the variable
# is empty, it is the command, and the shell fails with "command not found". Installs
# ShellCheck (scripts/apt-install.sh) when it is missing. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
files=(scripts/*.sh .ci/run)
command -v shellcheck >/dev/null || bash scripts/apt-install.sh shellcheck
failures=0
for f in "${files[@]}"; do
    bash -n "$f" || failures=$((failures + 1))
done
shellcheck --external-sources "${files[@]}" || failures=$((failures + 1))
# `$x NAME=v cmd` or `${x} NAME=v cmd` as a command: write `$x env NAME=v cmd`.
assignment_after_expansion() {
    grep -nE '^[[:space:]]*([;&|(]+[[:space:]]*)?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?[[:space:]]+[A-Za-z_][A-Za-z0-9_]*=' "$@"
}
# The rule must catch the line that once failed CI on every fresh machine.
# shellcheck disable=SC2016 # the line is matched as text, not run
if ! assignment_after_expansion <<<'    $sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq x' >/dev/null; then
    echo "lint-scripts: the rule misses the old install line"
    failures=$((failures + 1))
fi
if assignment_after_expansion "${files[@]}"; then
    echo "an assignment after an expanded command word runs as a command when the word is empty: use 'env NAME=value'"
    failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then
    echo "lint-scripts: $failures check(s) failed"
    exit 1
fi
echo "ok   ${#files[@]} scripts: bash -n, shellcheck, no assignment after an expanded command word"
