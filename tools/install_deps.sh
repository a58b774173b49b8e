#!/usr/bin/env bash
# Installs the Debian packages satasim needs, only those missing (idempotent): what the
# build, the tests (tools/test_all.sh) and the on-demand tools run. A program the tests run
# comes through satasim.results.need_tool(NAME, PACKAGE), which names its package here
# (harness/tests/test_install_deps.py checks both lists).
# --fuzz: also what the on-demand fuzz campaigns need (AFL++, and clang for the libFuzzer tree, with
# ccache: their clang trees rebuild per planted defect; tools/fuzz, tools/fuzz_bench;
# docs/fuzzing.md), which the test command does not. --list: print the packages (after
# --fuzz, with those) and install nothing.
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
  libsystemc-dev libyaml-cpp-dev libcli11-dev check libsubunit-dev verilator yosys
  python3 python3-pytest python3-pytest-xdist python3-yaml
  python3-execnet   # test_distributed: an execnet socket gateway (pytest-xdist pulls it in too)
  python3-jsonschema   # test_scenario_schema validates the scenarios against docs/scenario.schema.json
  qemu-system-x86
  git    # test_readme_tutorial runs the README's tutorial in a fresh git repository
  lcov   # tools/coverage (lcov, genhtml; gcov comes with build-essential)
  time   # /usr/bin/time -v: tools/bench_cost.py's peak memory
  python3-jinja2 python3-plotly   # the HTML reports (satasim.htmlreport: templates, timeline)
  chromium   # test_html_report_browser opens the reports in headless Chromium; the screenshots
  gtkwave    # the README's waveform commands; vcd2fst writes FST (satasim run --vcd FILE.fst)
  libclang-rt-dev  # LLVM's libFuzzer engine: build-san's satasim_fuzz_libfuzzer_smoke (test_fuzz_smoke)
)
if ((fuzz)); then
  PACKAGES+=(afl++ clang ccache)
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
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "satasim: ${#missing[@]} Debian package(s) missing: ${missing[*]}"
  echo "satasim: apt-get update ..."
  $SUDO apt-get update -qq
  # What apt will install with their dependencies, counted first, so the progress below
  # reads "[k/N]" (a fresh machine takes minutes here; silence looked like a hang).
  total=$(apt-get install -s -y --no-install-recommends "${missing[@]}" 2>/dev/null | grep -c '^Inst ' || true)
  echo "satasim: installing ${total} package(s) with their dependencies (full log: /tmp/satasim-apt.log)"
  set +o pipefail
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}" 2>&1 |
    tee /tmp/satasim-apt.log |
    awk -v total="$total" '/^Setting up /{ n++; printf("satasim: [%d/%d] %s\n", n, total, $3); fflush() }'
  rc=${PIPESTATUS[0]}
  set -o pipefail
  if [ "$rc" -ne 0 ]; then
    tail -20 /tmp/satasim-apt.log >&2
    echo "satasim: apt-get install failed (exit $rc); the log: /tmp/satasim-apt.log" >&2
    exit "$rc"
  fi
  echo "satasim: packages installed"
fi

# The Python package and its pytest plugin for Debian's python3 (import satasim, pytest11).
"$(dirname "$0")/install_python.sh"
