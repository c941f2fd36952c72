#!/usr/bin/env bash
# Kept for older instructions: llama-server is now built together with llama-quantize and llama-imatrix by
# scripts/build-llama-tools.sh (once per llama.cpp release and CPU, into ~/.cache/eddy/llama-tools/<release>/).
# Prints llama-server's path on its last line.
set -euo pipefail
exec "$(dirname "$0")/build-llama-tools.sh" --print server
