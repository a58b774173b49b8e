#!/usr/bin/env bash
# Installs the Debian packages satasim needs, only those missing (idempotent).
# --fuzz: also what the on-demand fuzz campaigns need (AFL++: tools/fuzz, tools/fuzz_bench;
# docs/fuzzing.md), which the test command does not.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libcli11-dev check libsubunit-dev verilator yosys
  python3 python3-pytest python3-pytest-xdist python3-yaml
  qemu-system-x86
  lcov
)
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=(afl++)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  echo "satasim: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
