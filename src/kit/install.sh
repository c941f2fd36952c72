#!/bin/sh
# Installs eddy @EDDY_VERSION@ (@TARGET@) from this kit folder alone: no network, no package registry.
# `eddy kit` writes this file from src/kit/install.sh, filling in the @…@ values.
#   ./install.sh [--prefix DIR] [--no-doctor]      (default prefix: $HOME/eddy)
# Order: check what this machine needs (one line per missing piece), check every file of the kit
# against manifest.json, then install into PREFIX/lib/eddy with a launcher at PREFIX/bin/eddy, then
# run `eddy doctor`. Nothing is installed unless every check passes.
set -eu

KIT_VERSION="@EDDY_VERSION@"
TARGET="@TARGET@"
NODE_MIN="@NODE_MIN@"
PYTHON_MIN="@PYTHON_MIN@"
KIT_NODE="@NODE_VERSION@"
KIT_ABI="@NODE_ABI@"

KIT=$(cd "$(dirname "$0")" && pwd)
PREFIX="${HOME:-/root}/eddy"
DOCTOR=1
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "install.sh: --prefix needs a folder" >&2; exit 2; }; PREFIX=$2; shift 2 ;;
        --prefix=*) PREFIX=${1#--prefix=}; shift ;;
        --no-doctor) DOCTOR=0; shift ;;
        -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$PREFIX" in /*) ;; *) PREFIX="$(pwd)/$PREFIX" ;; esac

# Never reach for a registry, even by accident (npm is used only to find node-gyp).
export npm_config_offline=true npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

MISSING=0
missing() { echo "missing: $*" >&2; MISSING=$((MISSING + 1)); }

NODE_OK=0
if ! command -v node >/dev/null 2>&1; then
    missing "node >= $NODE_MIN on PATH (not found)"
else
    NODE_FOUND=$(node -p 'process.versions.node + " " + process.platform + "-" + process.arch + " " + process.versions.modules' 2>/dev/null || echo "? ? ?")
    set -- $NODE_FOUND
    NODE_VER=$1; NODE_PLATFORM=$2; NODE_ABI=$3
    if ! node -e '
        const [a, b] = [process.argv[1], process.argv[2]].map((v) => v.split(".").map(Number));
        for (let i = 0; i < 3; i++) if ((a[i] || 0) !== (b[i] || 0)) process.exit((a[i] || 0) > (b[i] || 0) ? 0 : 1);' "$NODE_VER" "$NODE_MIN" 2>/dev/null; then
        missing "node >= $NODE_MIN (found $NODE_VER)"
    elif [ "$NODE_PLATFORM" != "$TARGET" ]; then
        missing "a $TARGET machine: this kit's binaries are built for $TARGET (found $NODE_PLATFORM; build a kit on one)"
    else
        NODE_OK=1
    fi
fi

if ! command -v python3 >/dev/null 2>&1; then
    missing "python3 >= $PYTHON_MIN on PATH for the judge (not found)"
elif ! python3 -c "import sys; sys.exit(0 if sys.version_info[:2] >= tuple(map(int, '$PYTHON_MIN'.split('.'))) else 1)" 2>/dev/null; then
    missing "python3 >= $PYTHON_MIN for the judge (found $(python3 --version 2>&1 | head -n 1))"
fi

if [ "$NODE_OK" = 1 ]; then
    # Integrity before anything from the kit runs: every file against manifest.json (sha256).
    if ! node "$KIT/eddy/dist/kit/verifyKitDir.js" "$KIT"; then
        echo "install.sh: the kit is damaged (above); nothing was installed" >&2
        exit 3
    fi
fi

# better-sqlite3 is the one addon tied to Node's ABI: the kit's build loads as is when the ABI matches;
# otherwise it is compiled here, offline, which needs a C++ toolchain and headers for this Node.
COMPILE=0
HEADERS=""
GYP=""
sqlite_loads() {
    node -e 'const D = require(process.argv[1]); new D(":memory:").prepare("select 1").get()' "$1/node_modules/better-sqlite3" >/dev/null 2>&1
}
if [ "$NODE_OK" = 1 ] && ! sqlite_loads "$KIT/eddy"; then
    COMPILE=1
    WHY="better-sqlite3 must be compiled for Node $NODE_VER (ABI $NODE_ABI; the kit's build is for Node $KIT_NODE, ABI $KIT_ABI)"
    command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || missing "a C++ compiler (c++ or g++): $WHY"
    command -v make >/dev/null 2>&1 || missing "make: $WHY"
    if [ "$NODE_ABI" = "$KIT_ABI" ] && [ -f "$KIT/node-headers/include/node/node_version.h" ]; then
        HEADERS="$KIT/node-headers"
    else
        SYS=$(cd "$(dirname "$(node -p process.execPath)")/.." && pwd)
        if [ -f "$SYS/include/node/node_version.h" ] &&
            [ "$(sed -n 's/^#define NODE_MAJOR_VERSION \([0-9]*\).*/\1/p' "$SYS/include/node/node_version.h")" = "${NODE_VER%%.*}" ]; then
            HEADERS="$SYS"
        else
            missing "Node $NODE_VER headers ($SYS/include/node, e.g. your distribution's Node development package): $WHY; the kit carries headers for Node $KIT_NODE only"
        fi
    fi
    NPM=$(command -v npm 2>/dev/null || true)
    [ -n "$NPM" ] && GYP="$(cd "$(dirname "$(readlink -f "$NPM")")/.." && pwd)/node_modules/node-gyp/bin/node-gyp.js"
    if [ -z "$GYP" ] || [ ! -f "$GYP" ]; then
        GYP=$(command -v node-gyp 2>/dev/null || true)
        [ -n "$GYP" ] || missing "node-gyp (it ships with npm): $WHY"
    fi
fi

# The judge's sandbox: the machine's bubblewrap, else the one the kit carries (with its libraries).
BWRAP_CARRIED=0
if ! command -v bwrap >/dev/null 2>&1; then
    if [ -x "$KIT/bubblewrap/bwrap" ] && LD_LIBRARY_PATH="$KIT/bubblewrap/lib" "$KIT/bubblewrap/bwrap" --version >/dev/null 2>&1; then
        BWRAP_CARRIED=1
    else
        missing "bubblewrap (bwrap) for the judge's sandbox (Debian/Ubuntu/Fedora package 'bubblewrap'); this kit carries none that runs here"
    fi
fi

if [ "$MISSING" -gt 0 ]; then
    echo "install.sh: $MISSING missing prerequisite(s); nothing was installed" >&2
    exit 1
fi

DEST="$PREFIX/lib/eddy"
NEW="$PREFIX/lib/.eddy-new.$$"
trap 'rm -rf "$NEW"' EXIT
mkdir -p "$PREFIX/lib" "$PREFIX/bin" "$PREFIX/models"
rm -rf "$NEW"
cp -R "$KIT/eddy" "$NEW"
if [ "$COMPILE" = 1 ]; then
    echo "install.sh: compiling better-sqlite3 for Node $NODE_VER (offline, headers from $HEADERS)" >&2
    (cd "$NEW/node_modules/better-sqlite3" && node "$GYP" rebuild --release --nodedir="$HEADERS" >"$NEW/.better-sqlite3-build.log" 2>&1) || {
        echo "install.sh: compiling better-sqlite3 failed; the log is $NEW/.better-sqlite3-build.log (kept)" >&2
        trap - EXIT
        exit 4
    }
fi
if ! sqlite_loads "$NEW"; then
    echo "install.sh: better-sqlite3 does not load with Node $NODE_VER; nothing was installed" >&2
    exit 4
fi
rm -rf "$DEST.old"
[ ! -e "$DEST" ] || mv "$DEST" "$DEST.old"
mv "$NEW" "$DEST"
rm -rf "$DEST.old"
trap - EXIT
for m in "$KIT"/models/*; do
    [ -f "$m" ] && cp "$m" "$PREFIX/models/"
done
BWRAP_ENV=""
if [ "$BWRAP_CARRIED" = 1 ]; then
    rm -rf "$PREFIX/lib/eddy-bubblewrap"
    cp -R "$KIT/bubblewrap" "$PREFIX/lib/eddy-bubblewrap"
    # The judge runs it with an empty environment: the wrapper names its libraries itself.
    cat >"$PREFIX/lib/eddy-bubblewrap/run" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$PREFIX/lib/eddy-bubblewrap/lib" exec "$PREFIX/lib/eddy-bubblewrap/bwrap" "\$@"
EOF
    chmod 755 "$PREFIX/lib/eddy-bubblewrap/run"
    BWRAP_ENV="EDDY_BWRAP=\"\${EDDY_BWRAP:-$PREFIX/lib/eddy-bubblewrap/run}\" "
fi
cat >"$PREFIX/bin/eddy" <<EOF
#!/bin/sh
# eddy $KIT_VERSION, installed from an eddy kit. Models (and eddy's tiny models) live in $PREFIX/models.
${BWRAP_ENV}EDDY_MODELS="\${EDDY_MODELS:-$PREFIX/models}" exec node "$DEST/dist/cli/bin.js" "\$@"
EOF
chmod 755 "$PREFIX/bin/eddy"
echo "install.sh: eddy $KIT_VERSION installed in $PREFIX (run $PREFIX/bin/eddy, or add $PREFIX/bin to PATH)"
if [ "$DOCTOR" = 1 ]; then
    "$PREFIX/bin/eddy" doctor
fi
