#!/usr/bin/env bash
# Installs the Debian packages satasim needs, only those missing (idempotent): what the
# build, the tests (tools/test_all.sh) and the on-demand tools run. A program the tests run
# comes through satasim.results.need_tool(NAME, PACKAGE), which names its package here
# (harness/tests/test_install_deps.py checks both lists).
# --fuzz: also what the on-demand fuzz campaigns need (AFL++ and clang's libFuzzer, with
# ccache: tools/fuzz, tools/fuzz_bench; docs/fuzzing.md), which the test command does not.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libsystemc-dev libyaml-cpp-dev libcli11-dev check libsubunit-dev verilator yosys
  python3 python3-pytest python3-pytest-xdist python3-yaml
  qemu-system-x86
  git    # test_readme_tutorial runs the README's tutorial in a fresh git repository
  lcov   # tools/coverage (lcov, genhtml; gcov comes with build-essential)
  time   # /usr/bin/time -v: tools/bench_cost.py's peak memory
)
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=(afl++ clang libclang-rt-dev ccache)
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
