#!/usr/bin/env bash
# Make .venv with sparkls and its test dependencies, on a fresh machine that has
# python3 (3.11+) and bash. Safe to run again: it only reinstalls what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    echo "bootstrap: $PYTHON not found; install Python 3.11 or newer." >&2
    exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "bootstrap: sparkls needs Python 3.11+, found $("$PYTHON" -V 2>&1)." >&2
    exit 1
fi

if [ ! -x .venv/bin/python ]; then
    if ! "$PYTHON" -m venv .venv 2>/dev/null; then
        rm -rf .venv
        # Debian and Ubuntu ship venv (and ensurepip) separately.
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "bootstrap: installing python3-venv with apt-get" >&2
            apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
            "$PYTHON" -m venv .venv
        else
            echo "bootstrap: '$PYTHON -m venv' failed; install your system's python3-venv package." >&2
            exit 1
        fi
    fi
fi

.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[tests]"
