#!/bin/sh
# eddy's first command on a fresh Debian/Ubuntu machine: the system packages the demo needs, then `npm install`.
#   scripts/setup.sh           install what is missing (as root, or through sudo), then npm install
#   scripts/setup.sh --check   only say what is missing and the one command that installs it (exit 1 if anything is)
# Without root or sudo it installs nothing and prints that one command. It never downloads anything
# but Debian packages (apt-get) and npm packages (npm install).
set -eu
cd "$(dirname "$0")/.."

check_only=0
[ "${1:-}" = "--check" ] && check_only=1

# command -> Debian package: the judge's sandbox, the judge's interpreter, better-sqlite3's compiler.
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
{ command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; } || missing="$missing build-essential"
missing="${missing# }"

if [ -n "$missing" ]; then
    install="apt-get install -y $missing"
    if [ "$check_only" = 1 ]; then
        echo "eddy setup: missing: $missing; install with: sudo $install" >&2
        exit 1
    fi
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "eddy setup: installing $missing (apt-get)" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive $install -qq >/dev/null
    elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        echo "eddy setup: installing $missing (sudo apt-get)" >&2
        sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive $install -qq >/dev/null
    else
        echo "eddy setup: missing: $missing; run this once, then scripts/setup.sh again: sudo $install" >&2
        exit 1
    fi
fi
[ "$check_only" = 1 ] && { echo "eddy setup: bwrap, python3, g++ and make are here" >&2; exit 0; }

# onnxruntime-node's post-install would fetch CUDA libraries from NuGet: eddy uses the bundled CPU binary.
ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund
