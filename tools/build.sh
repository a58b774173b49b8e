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
# The build's progress goes to DIR/build.log (hundreds of ninja lines otherwise), unless
# SATASIM_VERBOSE_BUILD=1; a failed build prints the log's last lines.
mkdir -p "$root/$dir"
log="$root/$dir/build.log"
what="${targets[*]:-every target}"
what="${what//--target /}"
if [ "${SATASIM_VERBOSE_BUILD:-0}" = "1" ]; then
  cmake -S "$root" -B "$root/$dir" -G Ninja "$@" >/dev/null
  cmake --build "$root/$dir" "${targets[@]}" -- -j"$(nproc)"
  exit 0
fi
start=$SECONDS
echo "satasim: building $dir ($what) ... (log: $dir/build.log)"
if ! { cmake -S "$root" -B "$root/$dir" -G Ninja "$@" && cmake --build "$root/$dir" "${targets[@]}" -- -j"$(nproc)"; } >"$log" 2>&1; then
  tail -40 "$log" >&2
  echo "satasim: building $dir failed; the whole log: $log" >&2
  exit 1
fi
echo "satasim: built $dir in $((SECONDS - start)) s"
