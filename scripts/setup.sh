#!/bin/sh
# eddy's first command on a fresh Debian/Ubuntu machine: the system packages the demo needs, then `npm install`.
#   scripts/setup.sh           install what is missing (as root, or through sudo), then npm install
#   scripts/setup.sh --check   only say what is missing and the one command that installs it (exit 1 if anything is)
#   scripts/setup.sh --system  install what is missing, no npm install (the test suite's walkthrough starts with this)
# Without root or sudo it installs nothing and prints that one command. It never downloads anything
# but Debian packages (apt-get) and npm packages (npm install).
set -eu
cd "$(dirname "$0")/.."

check_only=0
system_only=0
case "${1:-}" in
    --check) check_only=1 ;;
    --system) system_only=1 ;;
    "") ;;
    *) echo "eddy: unknown option '$1'; scripts/setup.sh takes --check or --system" >&2; exit 2 ;;
esac

# command -> Debian package: the judge's sandbox, the judge's interpreter and numpy beside it, better-sqlite3's compiler.
# The judge runs EDDY_PYTHON when set, else Debian's /usr/bin/python3 (src/judge/workerScript.ts defaultPython),
# whose third-party packages are Debian's: python3-numpy puts numpy there (answers import it: EvalPlus's do).
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
if [ -n "${EDDY_PYTHON:-}" ]; then
    command -v "$EDDY_PYTHON" >/dev/null 2>&1 || missing="$missing python3"
elif [ ! -x /usr/bin/python3 ]; then
    missing="$missing python3 python3-numpy"
elif ! /usr/bin/python3 -I -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
    # Older than the judge needs: the judge runs python3 on PATH instead, with that interpreter's own packages.
    command -v python3 >/dev/null 2>&1 || missing="$missing python3"
elif ! /usr/bin/python3 -I -c 'import numpy' >/dev/null 2>&1; then
    missing="$missing python3-numpy"
fi
{ command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; } || missing="$missing build-essential"
missing="${missing# }"

# Every line for the user is one `eddy: …` line; a refusal's last line names the one command that installs what is missing.
if [ -n "$missing" ]; then
    # As root, apt-get itself (a fresh container has no sudo); otherwise through sudo.
    sudo="sudo "
    [ "$(id -u)" = 0 ] && sudo=""
    install="apt-get install -y $missing"
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "eddy: missing: $missing; this is not a Debian/Ubuntu machine (no apt-get): install them with its package manager, then run scripts/setup.sh again" >&2
        exit 1
    fi
    if [ "$check_only" = 1 ]; then
        echo "eddy: missing: $missing; install with: $sudo$install" >&2
        exit 1
    fi
    if [ -z "$sudo" ]; then
        echo "eddy: installing $missing (apt-get)" >&2
        ok=0; { apt-get update -qq && DEBIAN_FRONTEND=noninteractive $install -qq >/dev/null; } || ok=$?
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        echo "eddy: installing $missing (sudo apt-get)" >&2
        ok=0; { sudo -n apt-get update -qq && sudo -n env DEBIAN_FRONTEND=noninteractive $install -qq >/dev/null; } || ok=$?
    else
        echo "eddy: missing: $missing; run this once, then scripts/setup.sh again: sudo $install" >&2
        exit 1
    fi
    if [ "$ok" != 0 ]; then
        # Offline, or no package lists yet: apt-get said why above; the command that installs them once it can.
        echo "eddy: could not install $missing (apt-get failed, see above); once this machine reaches a Debian mirror, run this, then scripts/setup.sh again: ${sudo}apt-get update && $sudo$install" >&2
        exit 1
    fi
fi
# An interpreter of one's own (EDDY_PYTHON) has its own packages: said, not installed (apt-get cannot reach it).
with_numpy=" with numpy"
if [ -n "${EDDY_PYTHON:-}" ] && ! "$EDDY_PYTHON" -I -c 'import numpy' >/dev/null 2>&1; then
    with_numpy=""
    echo "eddy: note: the judge runs EDDY_PYTHON ($EDDY_PYTHON), which has no numpy: answers that import it fail; install numpy for that interpreter, or unset EDDY_PYTHON (the judge then runs Debian's python3, with python3-numpy)" >&2
fi
[ "$check_only" = 1 ] && { echo "eddy: bwrap, python3$with_numpy, g++ and make are here" >&2; exit 0; }

[ "$system_only" = 1 ] && exit 0

# onnxruntime-node's post-install would fetch CUDA libraries from NuGet: eddy uses the bundled CPU binary.
ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund
