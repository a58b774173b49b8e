#!/usr/bin/env bash
# Configures and builds one build tree.
# Usage: tools/build.sh DIR [--target NAME]... [cmake -D options...]
# Without --target every target builds (tests included).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$1"; shift
targets=()
while [[ $# -gt 0 && "$1" == "--target" ]]; do
  targets+=(--target "$2"); shift 2
done
cmake -S "$root" -B "$root/$dir" -G Ninja "$@" >/dev/null
cmake --build "$root/$dir" "${targets[@]}" -- -j"$(nproc)"
