#!/usr/bin/env bash
# Makes this checkout's Python package importable by Debian's python3 without PYTHONPATH
# (`import satasim`) and registers its pytest plugin (entry point pytest11 = satasim), as an
# installed distribution would: a .pth naming harness/ and a dist-info folder in
# /usr/local/lib/python3.X/dist-packages (Debian's python3 reads it; no pip, no PyPI).
# Idempotent: a later checkout that runs it takes the names over. tools/install_deps.sh runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py=/usr/bin/python3
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' "$root/harness/satasim/__init__.py")
site=$($py -c 'import sys; print(f"/usr/local/lib/python{sys.version_info[0]}.{sys.version_info[1]}/dist-packages")')
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dist="$tmp/satasim-$version.dist-info"
mkdir -p "$dist"
echo "$root/harness" > "$tmp/satasim.pth"
printf 'Metadata-Version: 2.1\nName: satasim\nVersion: %s\nSummary: satasim, a hardware-accurate SATA simulator: its Python API and pytest plugin\n' "$version" > "$dist/METADATA"
printf '[pytest11]\nsatasim = satasim_pytest\n' > "$dist/entry_points.txt"
printf 'satasim\nsatasim_pytest\n' > "$dist/top_level.txt"
printf 'satasim tools/install_python.sh\n' > "$dist/INSTALLER"
printf 'satasim.pth,,\nsatasim-%s.dist-info/METADATA,,\n' "$version" > "$dist/RECORD"
# unchanged: nothing to do (the common case on every later run)
if cmp -s "$tmp/satasim.pth" "$site/satasim.pth" && diff -rq "$dist" "$site/satasim-$version.dist-info" >/dev/null 2>&1; then
  exit 0
fi
$SUDO mkdir -p "$site"
$SUDO rm -rf "$site"/satasim-*.dist-info
$SUDO cp "$tmp/satasim.pth" "$site/satasim.pth"
$SUDO cp -r "$dist" "$site/"
echo "satasim: Python package installed for $py ($site/satasim.pth -> $root/harness, pytest plugin 'satasim')"
