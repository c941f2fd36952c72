#!/usr/bin/env bash
# Builds llama.cpp's llama-server, llama-quantize and llama-imatrix from the exact source node-llama-cpp ships
# (llama/gitRelease.bundle, a git bundle of the release its binaries were built from), together, once per release
# and CPU, into a cache folder outside the repository:
#
#     ${EDDY_LLAMA_TOOLS_CACHE:-~/.cache/eddy/llama-tools}/<release>/{llama-server,llama-quantize,llama-imatrix,commit,cpu-flags}
#
# The server backend's tests start llama-server on a loopback port (the same llama.cpp as the in-process llama
# backend, so the two can be compared answer for answer); `eddy quant make` runs llama-quantize and llama-imatrix.
# The air-gapped kit can carry this folder (`eddy kit build --llama-tools`) for a machine without a compiler.
#
# Prints the tools' folder on its last line (`--print server|quantize|imatrix` prints that binary's path instead).
# Does nothing (but print it) when all three are already there for this CPU. CPU only; nothing is downloaded (no
# curl, no OpenSSL, no prebuilt web UI). A few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

print=dir
if [ "${1:-}" = "--print" ]; then print="${2:?--print server|quantize|imatrix}"; fi

llama_dir=node_modules/node-llama-cpp/llama
[ -d "$llama_dir" ] || llama_dir=$(node -e 'const p=require("path");process.stdout.write(p.join(p.dirname(require.resolve("node-llama-cpp/package.json")),"llama"))' 2>/dev/null || true)
bundle="$llama_dir/gitRelease.bundle"
[ -f "$bundle" ] || { echo "build-llama-tools: $bundle not found (run npm install first)" >&2; exit 1; }

# The release node-llama-cpp's binaries were built from (the tag it clones the bundle as).
release=$(node -e 'const fs=require("fs");const p=process.argv[1];const j=JSON.parse(fs.readFileSync(p+"/binariesGithubRelease.json","utf8"));process.stdout.write(String(j.release))' "$llama_dir")
[[ "$release" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "build-llama-tools: odd release name '$release'" >&2; exit 1; }

# GGML_NATIVE builds for this CPU's instructions, so the tools are only reused on a CPU with the same flags
# (a cache carried to another machine rebuilds rather than dying of an illegal instruction).
cpu_flags=$( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-12)

cache_root="${EDDY_LLAMA_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/eddy/llama-tools}"
dest="$cache_root/$release"
tools=(llama-server llama-quantize llama-imatrix)

report() {
    case "$print" in
        dir) echo "$dest" ;;
        server|quantize|imatrix) echo "$dest/llama-$print" ;;
        *) echo "build-llama-tools: --print takes server, quantize or imatrix" >&2; exit 2 ;;
    esac
}

complete=1
for t in "${tools[@]}"; do [ -x "$dest/$t" ] || complete=0; done
if [ "$complete" = 1 ] && [ "$(cat "$dest/cpu-flags" 2>/dev/null)" = "$cpu_flags" ]; then
    report
    exit 0
fi

command -v cmake >/dev/null || { echo "build-llama-tools: cmake is needed (apt-get install cmake g++)" >&2; exit 1; }
command -v git >/dev/null || { echo "build-llama-tools: git is needed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/eddy-llama-tools.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "build-llama-tools: building ${tools[*]} $release into $dest (once; minutes on few cores)" >&2
git clone --quiet "$bundle" "$work/src" 2>/dev/null
git -C "$work/src" -c advice.detachedHead=false checkout --quiet HEAD

# node-llama-cpp applies its patches to the clone before building its binaries; do the same so both run the
# same code (a patch already merged upstream does not apply, which is fine).
for patch in "$llama_dir"/patches/*.diff; do
    [ -f "$patch" ] || continue
    abs=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
    if git -C "$work/src" apply --check --ignore-whitespace "$abs" 2>/dev/null; then
        git -C "$work/src" apply --ignore-whitespace "$abs"
    fi
done

jobs="${EDDY_BUILD_JOBS:-2}"
cmake -S "$work/src" -B "$work/build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON \
    -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
    -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
    -Wno-dev >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build" --target "${tools[@]}" -j"$jobs" >"$work/build.log" 2>&1 || { tail -60 "$work/build.log" >&2; exit 1; }

mkdir -p "$dest"
# Install atomically: a concurrent build or a test reading a path never sees half a binary; cpu-flags and commit
# are written last, after every binary is in place.
for t in "${tools[@]}"; do
    built=$(find "$work/build" -type f -name "$t" -perm -u+x | head -1)
    [ -n "$built" ] || { echo "build-llama-tools: the build produced no $t" >&2; exit 1; }
    cp "$built" "$dest/$t.tmp.$$"
    mv -f "$dest/$t.tmp.$$" "$dest/$t"
done
git -C "$work/src" rev-parse HEAD >"$dest/commit.tmp.$$" && mv -f "$dest/commit.tmp.$$" "$dest/commit"
echo "$release" >"$dest/release"
echo "$cpu_flags" >"$dest/cpu-flags.tmp.$$" && mv -f "$dest/cpu-flags.tmp.$$" "$dest/cpu-flags"
report
