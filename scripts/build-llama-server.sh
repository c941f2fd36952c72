#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the exact source node-llama-cpp ships (llama/gitRelease.bundle, a git
# bundle of the release its binaries were built from), once per release and CPU, into a cache folder outside
# the repository. The server backend's tests start this binary on a loopback port: a real server, built from
# the same llama.cpp as the in-process llama backend, so the two can be compared answer for answer.
#
# Prints the binary's path on its last line. Does nothing (but print it) when the binary is already there.
# Only the llama-server target is built (minutes on 2 cores); CPU only; nothing is downloaded (no curl, no
# OpenSSL, no prebuilt web UI).
set -euo pipefail
cd "$(dirname "$0")/.."

llama_dir=node_modules/node-llama-cpp/llama
bundle="$llama_dir/gitRelease.bundle"
[ -f "$bundle" ] || { echo "build-llama-server: $bundle not found (run npm install first)" >&2; exit 1; }

# The release node-llama-cpp's binaries were built from (the tag it clones the bundle as).
release=$(node -e 'const fs=require("fs");const p=process.argv[1];const j=JSON.parse(fs.readFileSync(p+"/binariesGithubRelease.json","utf8"));process.stdout.write(String(j.release))' "$llama_dir")
[[ "$release" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "build-llama-server: odd release name '$release'" >&2; exit 1; }

# GGML_NATIVE builds for this CPU's instructions, so a binary is only reused on a CPU with the same flags
# (a cache carried to another machine rebuilds rather than dying of an illegal instruction).
cpu_flags=$( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m) | sha256sum | cut -c1-12)

cache_root="${EDDY_LLAMA_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/eddy/llama-server}"
dest="$cache_root/$release"
binary="$dest/llama-server"

if [ -x "$binary" ] && [ "$(cat "$dest/cpu-flags" 2>/dev/null)" = "$cpu_flags" ]; then
    echo "$binary"
    exit 0
fi

command -v cmake >/dev/null || { echo "build-llama-server: cmake is needed (apt-get install cmake g++)" >&2; exit 1; }
command -v git >/dev/null || { echo "build-llama-server: git is needed" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/eddy-llama-server.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "build-llama-server: building llama-server $release into $dest (once; minutes on few cores)" >&2
git clone --quiet "$bundle" "$work/src" 2>/dev/null
git -C "$work/src" -c advice.detachedHead=false checkout --quiet HEAD

# node-llama-cpp applies its patches to the clone before building its binaries; do the same so both run the
# same code (a patch already merged upstream does not apply, which is fine).
for patch in "$llama_dir"/patches/*.diff; do
    [ -f "$patch" ] || continue
    if git -C "$work/src" apply --check --ignore-whitespace "$(pwd)/$patch" 2>/dev/null; then
        git -C "$work/src" apply --ignore-whitespace "$(pwd)/$patch"
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
cmake --build "$work/build" --target llama-server -j"$jobs" >"$work/build.log" 2>&1 || { tail -60 "$work/build.log" >&2; exit 1; }

built=$(find "$work/build" -type f -name llama-server -perm -u+x | head -1)
[ -n "$built" ] || { echo "build-llama-server: the build produced no llama-server" >&2; exit 1; }

mkdir -p "$dest"
# Install atomically: a concurrent build or a test reading the path never sees half a binary.
echo "$cpu_flags" >"$dest/cpu-flags"
git -C "$work/src" rev-parse HEAD >"$dest/commit"
cp "$built" "$dest/llama-server.tmp.$$"
mv -f "$dest/llama-server.tmp.$$" "$binary"
echo "$binary"
