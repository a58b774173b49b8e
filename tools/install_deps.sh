#!/usr/bin/env bash
# Installs the Debian packages satasim needs, only those missing (idempotent).
# --fuzz: also what the on-demand fuzz campaigns need (AFL++: tools/fuzz, tools/fuzz_bench;
# ccache: their clang trees rebuild per planted defect; docs/fuzzing.md), which the test
# command does not. --list: print the packages (after --fuzz, with those) and install nothing.
set -euo pipefail
fuzz=0 list=0
for a in "$@"; do
  case "$a" in
    --fuzz) fuzz=1 ;;
    --list) list=1 ;;
    *) echo "install_deps.sh: unknown option $a (--fuzz, --list)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev check libsubunit-dev verilator yosys
  python3 python3-pytest python3-pytest-xdist python3-yaml
  qemu-system-x86
  lcov
)
if ((fuzz)); then
  PACKAGES+=(afl++ ccache)
fi
if ((list)); then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
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
